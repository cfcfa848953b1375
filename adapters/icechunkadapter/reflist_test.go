package icechunkadapter_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/icechunkadapter"
	"github.com/pipefs/pipefs/vfs"
)

// TestRefs lists the branches and tags of the spec v1 and v2 fixtures:
// the deleted tag is left out, and each ref opens the snapshot it lists.
func TestRefs(t *testing.T) {
	for _, repo := range []string{"test-repo-v1", "test-repo-v2"} {
		t.Run(repo, func(t *testing.T) {
			ctx := t.Context()
			dir := "file:" + fixture(t, repo) + "/"
			fsys, err := vfs.OpenFS(ctx, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			var tree *icechunkadapter.Tree
			if !fsys.As(&tree) {
				t.Fatal("FS.As found no *icechunkadapter.Tree")
			}
			refs, err := tree.Refs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range refs {
				names = append(names, r.Name)
			}
			if got, want := fmt.Sprintf("%q", names), `["branch.main" "branch.my-branch" "tag.it also works!" "tag.it works!"]`; got != want {
				t.Fatalf("Refs = %s, want %s", got, want)
			}
			for _, r := range refs {
				ref, err := vfs.OpenFS(ctx, fmt.Sprintf("%s|icechunk://%s/", fsys.Pipeline()[0], strings.ReplaceAll(r.Name, " ", "%20")), nil)
				if err != nil {
					t.Fatalf("%s: %v", r.Name, err)
				}
				var at *icechunkadapter.Tree
				ref.As(&at)
				if id := at.Snapshot().ID; id != r.Snapshot {
					t.Errorf("%s opens snapshot %s, Refs says %s", r.Name, id, r.Snapshot)
				}
				ref.Close()
			}
		})
	}
}
