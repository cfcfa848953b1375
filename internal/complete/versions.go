package complete

import (
	"context"
	"strings"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// versions completes the authority of a store's sub-URL after base, such
// as "ocdbt://" or "icechunk://": the names of the store's versions when
// it has them (driver.RefLister: the branches and tags of an Icechunk
// repository, "branch.main/"), else the IDs of its versions
// (driver.Versioned: "v3/" of an OCDBT database), each written as the
// scheme writes a version (vfs.SubURL.WithVersion). head is the text up
// to the "//" included; prefix what is typed after it. A store that is
// not versioned gets nothing.
func (c *Completer) versions(ctx context.Context, base, head, scheme, prefix string) ([]string, error) {
	pipeline, err := c.resolve(base + "|" + scheme + ":")
	if err != nil {
		return nil, err
	}
	fsys, err := vfs.OpenFS(ctx, pipeline, c.options())
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	var ids []string
	var refs driver.RefLister
	var v driver.Versioned
	switch {
	case fsys.As(&refs):
		rs, err := refs.ListRefs(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			ids = append(ids, r.Name)
		}
	case fsys.As(&v):
		vs, err := v.Versions(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			ids = append(ids, v.ID)
		}
	}
	var out []string
	for _, id := range ids {
		u, err := (vfs.SubURL{Scheme: scheme}).WithVersion(id)
		if err != nil {
			continue // a name the grammar does not take as a version
		}
		if strings.HasPrefix(u.Authority, prefix) {
			out = append(out, head+u.Authority+"/")
		}
	}
	return out, nil
}
