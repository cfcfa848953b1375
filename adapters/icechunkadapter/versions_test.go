package icechunkadapter_test

import (
	"context"
	"testing"

	"github.com/pipefs/pipefs/adapters/icechunkadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestVersions checks that the tree's driver.Versioned view is its
// History, oldest first, with no key counts, and that each ID opens its
// snapshot.
func TestVersions(t *testing.T) {
	ctx := context.Background()
	dir := "file:" + fixture(t, "test-repo-v2") + "/"
	fsys, err := vfs.OpenFS(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var v driver.Versioned
	if !fsys.As(&v) {
		t.Fatal("FS.As found no driver.Versioned")
	}
	versions, err := v.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var tree *icechunkadapter.Tree
	if !fsys.As(&tree) {
		t.Fatal("FS.As found no *icechunkadapter.Tree")
	}
	hist, err := tree.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != len(hist) || len(hist) != 4 {
		t.Fatalf("Versions: %d versions, History: %d, want 4", len(versions), len(hist))
	}
	for i, got := range versions {
		s := hist[len(hist)-1-i]
		want := driver.Version{ID: s.ID, Time: s.Time, Keys: -1, Message: s.Message}
		if got != want {
			t.Errorf("Versions()[%d] = %+v, want %+v", i, got, want)
		}
	}
	if versions[0].Message != "Repository initialized" {
		t.Errorf("Versions()[0] = %+v, want the first commit", versions[0])
	}
	first, err := vfs.OpenFS(ctx, dir+"|icechunk://"+versions[0].ID+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	var ft *icechunkadapter.Tree
	if !first.As(&ft) || ft.Snapshot().ID != versions[0].ID {
		t.Errorf("icechunk://%s/ does not open that snapshot", versions[0].ID)
	}
}
