package arraycore_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pipefs/pipefs/adapters/arraycore"
)

// Open a Zarr v3 array through a pipeline, describe it, and read a box.
func ExampleOpenArray() {
	ctx := context.Background()
	dir, _ := filepath.Abs("../../../shared/fixtures/zarr3/data.zarr")
	a, fsys, err := arraycore.OpenArray(ctx, "file:"+filepath.ToSlash(dir)+"/|zarr3:2d.chunked.compressed.sharded.i2", "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fsys.Close()
	fmt.Println(a.DType.Name, a.Shape, "shards", a.ShardShape, "inner chunks", a.ChunkShape)
	start, stop, _ := arraycore.ParseBox("1:3,2:4", a.Shape)
	b, err := a.ReadBox(ctx, start, stop, 1<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < len(b); i += 2 {
		fmt.Print(binary.LittleEndian.Uint16(b[i:]), " ")
	}
	fmt.Println()
	// Output:
	// int16 [4 4] shards [2 2] inner chunks [1 1]
	// 7 8 11 12
}

// Describe a node as text, as "pipefs array URL" prints it.
func ExampleWriteDescription() {
	ctx := context.Background()
	dir, _ := filepath.Abs("../../../shared/fixtures/zarr2/data.zarr")
	n, fsys, err := arraycore.OpenNode(ctx, "file:"+filepath.ToSlash(dir)+"/|zarr2:1d.contiguous.zlib.i2", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fsys.Close()
	arraycore.WriteDescription(os.Stdout, n, false)
	// Output:
	// format:          zarr2
	// node:            array
	// path:            1d.contiguous.zlib.i2
	// shape:           [4]
	// chunk shape:     [4] (grid [1])
	// data type:       int16 (stored "<i2", 2 bytes)
	// fill value:      0
	// order:           C
	// chunk keys:      v2 .
	// codecs:          zlib {"id":"zlib","level":1}
	// attributes:      {}
}
