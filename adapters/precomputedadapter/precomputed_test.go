package precomputedadapter_test

import (
	"path/filepath"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/precomputedadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/fileroot"
)

func TestConformance(t *testing.T) {
	dir, err := filepath.Abs("../../../shared/fixtures/precomputed/one_channel")
	if err != nil {
		t.Fatal(err)
	}
	fstest.Run(t, fstest.Case{Pipeline: "file:" + filepath.ToSlash(dir) + "/|neuroglancer-precomputed:",
		Files: map[string][]byte{},
	})
}
