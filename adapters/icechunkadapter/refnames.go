package icechunkadapter

import (
	"context"
	"strings"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// Refs returns the branches and the tags of the repository whose
// directory is base, as icechunk://REF/ names them: "branch.NAME" for each
// branch, then "tag.NAME" for each tag that is not deleted, each group
// sorted by name. A spec v1 repository's refs are found by listing its
// refs/ directory, so a base that cannot list (an HTTP server) yields an
// error there. o may be nil.
func Refs(ctx context.Context, base driver.Tree, o *vfs.Options) ([]string, error) {
	r, err := openRepo(ctx, base, o)
	if err != nil {
		return nil, err
	}
	if r.layout == layoutV2 {
		return r.refNames(), nil
	}
	ents, err := base.ReadDir(ctx, "refs")
	if err != nil {
		return nil, err
	}
	var branches, tags []string
	for _, e := range ents {
		kind, name, _ := strings.Cut(e.Name(), ".")
		if !e.IsDir() || name == "" {
			continue
		}
		switch kind {
		case "branch":
			branches = append(branches, e.Name())
		case "tag":
			if deleted, err := exists(ctx, base, "refs/"+e.Name()+"/ref.json.deleted"); err != nil {
				return nil, err
			} else if !deleted {
				tags = append(tags, e.Name())
			}
		}
	}
	return append(branches, tags...), nil
}
