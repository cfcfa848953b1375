package array_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"

	"github.com/pipefs/pipefs/adapters/array"
	_ "github.com/pipefs/pipefs/adapters/zarradapter"
	_ "github.com/pipefs/pipefs/roots/fileroot"
)

// Open a Zarr v3 array through a pipeline, describe it, and read a box.
func ExampleOpenArray() {
	ctx := context.Background()
	dir, _ := filepath.Abs("../../../shared/fixtures/zarr3/data.zarr")
	a, fsys, err := array.OpenArray(ctx, "file:"+filepath.ToSlash(dir)+"/|zarr3:2d.chunked.compressed.sharded.i2", "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fsys.Close()
	fmt.Println(a.DType.Name, a.Shape, "shards", a.ShardShape, "inner chunks", a.ChunkShape)
	// The box [1:3, 2:4].
	b, err := a.ReadBox(ctx, []int64{1, 2}, []int64{3, 4}, 1<<20)
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
