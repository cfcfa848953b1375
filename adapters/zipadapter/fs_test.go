package zipadapter

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
)

// readAll walks t and returns the contents of every regular file, reading
// at most max bytes of each; links map to "->link".
func readAll(t driver.Tree, max int64) (map[string]string, error) {
	got := map[string]string{}
	err := fs.WalkDir(fstest.TreeFS(t), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			got[name] = "->link"
			return nil
		}
		b, err := t.OpenBlob(context.Background(), name)
		if err != nil {
			return err
		}
		defer func() {
			if c, ok := b.(io.Closer); ok {
				c.Close()
			}
		}()
		data, err := io.ReadAll(io.LimitReader(io.NewSectionReader(driver.ReaderAt(context.Background(), b), 0, b.Stat().Size()), max))
		if err != nil {
			return &fs.PathError{Op: "read", Path: name, Err: err}
		}
		got[name] = string(data)
		return nil
	})
	return got, err
}

var _ = path.Join

func reflectTypeString(v any) string { return fmt.Sprintf("%T", v) }
