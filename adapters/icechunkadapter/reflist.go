package icechunkadapter

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Ref is a branch or a tag of a repository.
type Ref struct {
	// Name is what icechunk://REF/ names it by: "branch.main", "tag.v1".
	Name string
	// Snapshot is the id of the snapshot it points at.
	Snapshot string
}

// Refs returns the branches, then the tags, of the repository t was read
// from, each sorted by name; deleted tags are left out. A spec v1
// repository keeps its refs in a refs/ directory: when its store cannot
// list (an HTTP server), only branch.main is returned.
func (t *Tree) Refs(ctx context.Context) ([]Ref, error) {
	r := t.repo
	var out []Ref
	if r.layout == layoutV2 {
		for _, kind := range []string{"branch", "tag"} {
			m := r.info.branches
			if kind == "tag" {
				m = r.info.tags
			}
			for _, n := range sortedKeys(m) {
				out = append(out, Ref{Name: kind + "." + n, Snapshot: r.info.snapshots[m[n]].info.ID})
			}
		}
		return out, nil
	}
	names := []string{"branch.main"}
	ents, err := r.base.ReadDir(ctx, "refs")
	switch {
	case err == nil:
		names = names[:0]
		for _, e := range ents {
			if e.IsDir() && (strings.HasPrefix(e.Name(), "branch.") || strings.HasPrefix(e.Name(), "tag.")) {
				names = append(names, e.Name())
			}
		}
	case !errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	// Branches sort before tags, as "branch." < "tag.".
	slices.Sort(names)
	for _, n := range names {
		id, err := r.resolve(ctx, n)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a deleted tag
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Ref{Name: n, Snapshot: id.String()})
	}
	return out, nil
}

var _ driver.RefLister = (*Tree)(nil)

// ListRefs is Refs for driver.RefLister: the Version of a ref is the id
// of the snapshot it points at, the ID of a version in Versions.
func (t *Tree) ListRefs(ctx context.Context) ([]driver.Ref, error) {
	refs, err := t.Refs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]driver.Ref, len(refs))
	for i, r := range refs {
		out[i] = driver.Ref{Name: r.Name, Version: r.Snapshot}
	}
	return out, nil
}
