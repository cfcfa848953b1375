package vfs_test

import (
	"fmt"

	"github.com/pipefs/pipefs/vfs"
)

func ExampleParse() {
	p, err := vfs.Parse("S3://bucket/data.zip|ZIP|zip:inner/a.zip|..:b|zarr3:array")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	fmt.Println(p[0].Bucket(), p[0].Key())

	_, err = vfs.Parse("gs://bucket|zip:")
	fmt.Println(err)
	// Output:
	// s3://bucket/data.zip|zip:b/|zarr3:array
	// bucket data.zip
	// invalid pipeline: sub-URL 1 "zip:": zip needs a file as its base, but "gs://bucket" yields a directory
}

func ExamplePipeline_Resolve() {
	base := vfs.MustParse("https://example.com/data/a.zip?token=t|zip:x/y.zarr")
	for _, ref := range []string{"../z.zarr|zarr3:", "..:b.zip|zip:", "s3://bucket/c"} {
		p, err := base.Resolve(ref)
		fmt.Println(p, err)
	}
	// Output:
	// https://example.com/data/a.zip?token=t|zip:z.zarr/|zarr3: <nil>
	// https://example.com/data/b.zip|zip: <nil>
	// s3://bucket/c <nil>
}

func ExampleSubURL_Join() {
	p := vfs.MustParse("file:/srv/archive.zip|zip:docs")
	u := p[len(p)-1].Join("read me.txt")
	fmt.Println(p[:len(p)-1].Append(u))
	fmt.Println(u.Key())
	// Output:
	// file:/srv/archive.zip|zip:docs/read%20me.txt
	// docs/read me.txt
}
