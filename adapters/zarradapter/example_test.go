package zarradapter_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
)

// Open a Zarr v3 hierarchy inside a zip, list a group and read its
// typed description from Stat(".").Sys().
func Example() {
	ctx := context.Background()
	zip, _ := filepath.Abs("../../../shared/fixtures/zarr3/data.zipped_from_parent.zarr.zip")
	fsys, err := vfs.OpenFS(ctx, "file:"+filepath.ToSlash(zip)+"|zip:data.zarr/|zarr3:consolidated", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fsys.Close()
	info, _ := fsys.Stat(".")
	n := array.NodeOf(info)
	fmt.Println(n.Format, n.Path, n.Children, string(n.Attributes))
	// Output: zarr3 consolidated [1d.chunked.i2 2d.contiguous.i2 nested] {
	//     "answer": 42
	//   }
}
