package imageadapter_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"path/filepath"

	"github.com/pipefs/pipefs/adapters/imageadapter"
	"github.com/pipefs/pipefs/vfs"
)

// Decoded pixels are a file: its Sys describes them, its bytes are the
// samples, row-major with channels interleaved.
func Example() {
	p, err := filepath.Abs("testdata/images/png-rgba8.png")
	if err != nil {
		log.Fatal(err)
	}
	f, err := vfs.Open(context.Background(), "file:"+p+"|png:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	im := info.Sys().(*vfs.Origin).Header.(*imageadapter.Image)
	fmt.Println(im.Shape, im.DType, im.Channels, info.Size())

	// The pixel at row 2, column 5.
	px := make([]byte, 4)
	if _, err := f.ReadAt(px, (2*im.Shape[1]+5)*im.Shape[2]); err != nil && err != io.EOF {
		log.Fatal(err)
	}
	fmt.Println(px)
	// Output:
	// [24 32 4] uint8 RGBA 3072
	// [82 213 112 233]
}
