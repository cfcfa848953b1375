package ocdbtadapter_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/pipefs/pipefs/adapters/ocdbtadapter"
	"github.com/pipefs/pipefs/vfs"
)

// Open a database at one of its versions, list it and read a key.
func Example() {
	dir, _ := filepath.Abs("../../../shared/fixtures/ocdbt/multi_version_high_arity.ocdbt")
	ctx := context.Background()
	fsys, err := vfs.OpenFS(ctx, "file:"+filepath.ToSlash(dir)+"/|ocdbt://v3/", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fsys.Close()
	names, _ := fs.Glob(fsys, "*")
	fmt.Println(names)
	b, _ := fs.ReadFile(fsys, "key2")
	fmt.Printf("%s\n", b)
	info, _ := fsys.Stat(".")
	v := info.Sys().(*vfs.Origin).Header.(*ocdbtadapter.Version)
	fmt.Println(v.Generation, v.NumKeys)
	// Output:
	// [key1 key2 key3]
	// version 2
	// 3 3
}

// List the history of a database, as "pipefs log" does: the FS of a
// database reaches its *Tree through As.
func ExampleTree_Log() {
	dir, _ := filepath.Abs("../../../shared/fixtures/ocdbt/multi_version_high_arity.ocdbt")
	ctx := context.Background()
	fsys, err := vfs.OpenFS(ctx, "file:"+filepath.ToSlash(dir)+"/", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fsys.Close()
	var db *ocdbtadapter.Tree
	if !fsys.As(&db) {
		fmt.Println("not an OCDBT database")
		return
	}
	versions, err := db.Log(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range versions[len(versions)-2:] {
		fmt.Println(v.Name(), v.TimeText(), v.NumKeys)
	}
	// Output:
	// v199 2025-01-30T21:32:59.907529813Z 199
	// v200 2025-01-30T21:32:59.915170266Z 200
}
