package zipadapter_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/zipadapter"
)

func Example() {
	// An archive in memory, made with archive/zip.
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("docs/hello.txt")
	io.WriteString(f, "hello, pipefs\n")
	w.Close()

	ctx := context.Background()
	a, err := zipadapter.Open(ctx, driver.BytesBlob(buf.Bytes(), nil), nil)
	if err != nil {
		panic(err)
	}
	list, _ := a.ReadDir(ctx, ".")
	for _, e := range list {
		fmt.Println(e.Name(), e.IsDir())
	}
	b, err := a.OpenBlob(ctx, "docs/hello.txt")
	if err != nil {
		panic(err)
	}
	data, _ := io.ReadAll(io.NewSectionReader(driver.ReaderAt(ctx, b), 0, b.Stat().Size()))
	fmt.Printf("%s", data)
	// Output:
	// docs true
	// hello, pipefs
}
