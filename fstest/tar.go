package fstest

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"path"
	"strings"
	"testing"
)

// TarFiles reads a tar archive with archive/tar and returns what a Case
// expects of it: the regular files with their contents and the
// directories, named as fs names (a leading "./" and a trailing "/"
// removed). An entry of another type, or an archive that archive/tar
// refuses, fails t: the function reads fixtures, whose reference reading
// must not be in doubt.
func TarFiles(t testing.TB, archive []byte) (files map[string][]byte, dirs []string) {
	t.Helper()
	files = map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, dirs
		}
		if err != nil {
			t.Fatalf("fstest.TarFiles: archive/tar: %v", err)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		switch h.Typeflag {
		case tar.TypeDir:
			if name != "." {
				dirs = append(dirs, name)
			}
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatalf("fstest.TarFiles: archive/tar: %s: %v", h.Name, err)
			}
			files[name] = b
		default:
			t.Fatalf("fstest.TarFiles: %s: entry type %q is not a file or a directory", h.Name, h.Typeflag)
		}
	}
}
