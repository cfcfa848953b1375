package vfs_test

import (
	"fmt"

	"github.com/pipefs/pipefs/vfs"
)

// A fleet shares the indexes of the archives in its bucket: the process
// that derives one writes it beside the archive, and every other machine
// reads it with one request instead of decoding the archive. Workers that
// may not write to the bucket read only.
func ExampleSidecarMode() {
	indexer := &vfs.Options{Sidecar: vfs.SidecarWrite}
	worker := &vfs.Options{Sidecar: vfs.SidecarRead}
	// As pipefs --sidecar and $PIPEFS_SIDECAR give it:
	m, err := vfs.ParseSidecarMode("read")
	fmt.Println(indexer.Sidecar, worker.Sidecar, m, err)
	fmt.Println("s3://bucket/data/src.tar.gz" + vfs.SidecarSuffix + "<sha256>.pfi")
	// Output:
	// write read read <nil>
	// s3://bucket/data/src.tar.gz.pipefs/<sha256>.pfi
}
