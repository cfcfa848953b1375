package hdf5adapter_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/vfs"
)

// Open an HDF5 file (its format is detected), walk its groups, and read a
// dataset's elements.
func Example() {
	p, _ := filepath.Abs("../../../shared/fixtures/hdf5/earliest.hdf5")
	fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(p), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fsys.Close()
	fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		if ds, ok := info.Sys().(*vfs.Origin).Header.(*hdf5adapter.Dataset); ok {
			fmt.Println(name, ds.DType.NumPy, ds.Shape, ds.Layout)
		} else {
			fmt.Println(name + "/")
		}
		return nil
	})
	b, _ := fs.ReadFile(fsys, "group1/dataset2")
	fmt.Println(binary.BigEndian.Uint64(b[24:]))
	// Output:
	// ./
	// dataset1 <i4 [4] contiguous
	// group1/
	// group1/dataset2 >u8 [4] contiguous
	// group1/subgroup1/
	// group1/subgroup1/dataset3 <f4 [4] contiguous
	// 3
}
