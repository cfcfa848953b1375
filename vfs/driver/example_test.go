package driver_test

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// upper is a toy adapter, "pipefs.upper:", that reads a file and yields
// its bytes in upper case. A real adapter is a package of its own whose
// init registers it; a program imports the package, and that is all.
func upper(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	size := in.Stat().Size()
	if size > env.Limits.MaxDocument {
		return driver.Location{}, driver.Limitf("%d bytes, more than Limits.MaxDocument (%d)", size, env.Limits.MaxDocument)
	}
	buf := make([]byte, size)
	if _, err := in.ReadAt(ctx, buf, 0); err != nil && err != io.EOF {
		return driver.Location{}, err // an I/O error from below stays what it is
	}
	info := &driver.FileInfo{FName: in.Stat().Name(), FSize: size, FMode: 0o444}
	return driver.Location{Blob: driver.BytesBlob(bytes.ToUpper(buf), info)}, nil
}

// Write an adapter: one function, registered once.
func Example() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.upper", OpenFile: upper}) // in the adapter package's init

	memroot.WriteFile("toy/hello.txt", []byte("hello, pipefs\n"))
	f, err := vfs.Open(context.Background(), "memory:/toy/hello.txt|pipefs.upper:", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	fmt.Printf("%s %s", f.URL(), b)
	// Output: memory:/toy/hello.txt|pipefs.upper: HELLO, PIPEFS
}
