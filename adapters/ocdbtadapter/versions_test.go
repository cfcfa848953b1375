package ocdbtadapter_test

import (
	"context"
	"testing"

	"github.com/pipefs/pipefs/adapters/ocdbtadapter"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestVersions checks that the tree's driver.Versioned view lists what Log
// lists, oldest first, and that each ID opens its version.
func TestVersions(t *testing.T) {
	ctx := context.Background()
	fsys := openFS(t, "file:"+fixture(t, "multi_version_low_arity.ocdbt")+"/")
	var v driver.Versioned
	if !fsys.As(&v) {
		t.Fatal("FS.As found no driver.Versioned")
	}
	versions, err := v.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var tree *ocdbtadapter.Tree
	if !fsys.As(&tree) {
		t.Fatal("FS.As found no *ocdbtadapter.Tree")
	}
	log, err := tree.Log(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != len(log) || len(log) != 200 {
		t.Fatalf("Versions: %d versions, Log: %d, want 200", len(versions), len(log))
	}
	for i, got := range versions {
		want := driver.Version{ID: log[i].Name(), Time: log[i].CommitTime, Keys: int64(log[i].NumKeys)}
		if got != want {
			t.Fatalf("Versions()[%d] = %+v, want %+v", i, got, want)
		}
	}
	if versions[0].ID != "v1" || versions[0].Keys != 1 {
		t.Errorf("Versions()[0] = %+v, want v1 with 1 key", versions[0])
	}
	v8 := openFS(t, "file:"+fixture(t, "multi_version_low_arity.ocdbt")+"/|ocdbt://"+versions[7].ID+"/")
	var t8 *ocdbtadapter.Tree
	if !v8.As(&t8) || t8.Version().Generation != 8 {
		t.Errorf("ocdbt://%s/ does not open generation 8", versions[7].ID)
	}
}
