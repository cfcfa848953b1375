package gsroot_test

import (
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest/cloudtest"
	"github.com/pipefs/pipefs/vfs"
)

// TestSidecars shares the indexes of a tar.gz between processes through
// the bucket that holds it, on the GCS emulator: see
// cloudtest.CheckSidecars.
func TestSidecars(t *testing.T) {
	cloudtest.CheckSidecars(t, cloudtest.SidecarStore{
		URL:    "gs://side/data/src.tar.gz",
		Object: "data/src.tar.gz",
		Options: func(d *disk.Store, m vfs.SidecarMode) *vfs.Options {
			return &vfs.Options{Cache: vfs.NewCache(0), Disk: d, NoDisk: d == nil, Sidecar: m}
		},
		Put: func(name string, data []byte) { put(t, "side", name, data) },
		Get: func(name string) []byte {
			o, err := gcs.Server.GetObject("side", name)
			if err != nil {
				t.Fatal(err)
			}
			return o.Content
		},
		List: func(prefix string) []string {
			list, err := gcs.Server.ListObjectsWithOptionsPaginated("side", fakestorage.ListOptions{Prefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range list.Objects {
				names = append(names, o.Name)
			}
			return names
		},
		Requests: gcs.Take,
	})
}
