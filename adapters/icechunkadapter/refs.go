package icechunkadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// Spec versions of a repository layout.
const (
	layoutV1 = 1 // refs/ directory with JSON refs
	layoutV2 = 2 // binary repo file
)

// repo is an opened repository directory: its layout and, for v2, its
// decoded repo file.
type repo struct {
	base   driver.Tree
	layout int
	info   *repoInfo // v2 only
	lim    vfs.Limits
	env    *vfs.Env // of the adapter, for vfs.Env.DiskObject; nil if none
}

// openRepo detects the layout of the repository in base: a repo file
// makes it v2 (even beside an unfinished migration's refs/), a
// refs/branch.main/ref.json v1, and refs/branch.main/ZZZZZZZZ.json the
// legacy pre-1.0 format, which is refused.
func openRepo(ctx context.Context, base driver.Tree, o *vfs.Options, env *vfs.Env) (*repo, error) {
	r := &repo{base: base, lim: o.EffectiveLimits(), env: env}
	data, err := readFile(ctx, base, "repo", maxStoredMetadata)
	switch {
	case err == nil:
		_, payload, err := decodeMetadata("repo", data, fileRepo)
		if err != nil {
			return nil, err
		}
		if r.info, err = parseRepo("repo", payload, r.lim.MaxEntries); err != nil {
			return nil, err
		}
		r.layout = layoutV2
		return r, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if ok, err := exists(ctx, base, "refs/branch.main/ZZZZZZZZ.json"); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("refs/branch.main/ZZZZZZZZ.json: %w", ErrLegacyFormat)
	}
	// A store that cannot list (an HTTP server) cannot Stat the refs/
	// directory either, but it can find the file of the main branch.
	if ok, err := exists(ctx, base, "refs/branch.main/ref.json"); err != nil {
		return nil, err
	} else if ok {
		r.layout = layoutV1
		return r, nil
	}
	if ok, err := isDir(ctx, base, "refs"); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("not an Icechunk repository: no repo file (spec v2), no refs/ directory and no refs/branch.main/ref.json (spec v1; a store that cannot be listed needs that file): %w", fs.ErrNotExist)
	}
	r.layout = layoutV1
	return r, nil
}

// exists reports whether name exists in t.
func exists(ctx context.Context, t driver.Tree, name string) (bool, error) {
	_, err := t.Stat(ctx, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// isDir reports whether name is a directory of t.
func isDir(ctx context.Context, t driver.Tree, name string) (bool, error) {
	fi, err := t.Stat(ctx, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil && fi.IsDir(), err
}

// readFile reads the whole file name of t, refusing files larger than max.
func readFile(ctx context.Context, t driver.Tree, name string, max int64) ([]byte, error) {
	b, err := t.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	size := b.Stat().Size()
	if size > max {
		return nil, limitf("%s: %d bytes, more than the %d this reader accepts", name, size, max)
	}
	if size < 0 {
		return nil, corruptf("%s: negative size", name)
	}
	buf := make([]byte, size) // size <= max, checked above
	n, err := b.ReadAt(ctx, buf, 0)
	if err == io.EOF && n == len(buf) {
		err = nil
	}
	if err == io.EOF {
		return nil, corruptf("%s: truncated: %d of %d bytes", name, n, size)
	}
	return buf, err
}

// errRefNotFound reports a ref that names nothing, listing what exists.
func (r *repo) errRefNotFound(ref, why string) error {
	msg := fmt.Sprintf("icechunk ref %q not found", ref)
	if why != "" {
		msg += " (" + why + ")"
	}
	if names := r.refNames(); len(names) > 0 {
		msg += "; the refs are " + strings.Join(names, ", ")
	}
	return fmt.Errorf("%s: %w", msg, fs.ErrNotExist)
}

// refNames lists the branches and tags of a v2 repository (v1 refs are
// not listed: that would need a directory listing).
func (r *repo) refNames() []string {
	if r.info == nil {
		return nil
	}
	var names []string
	for _, n := range sortedKeys(r.info.branches) {
		names = append(names, "branch."+n)
	}
	for _, n := range sortedKeys(r.info.tags) {
		names = append(names, "tag."+n)
	}
	return names
}

// resolve returns the snapshot id that ref names: "" or branch.NAME,
// tag.NAME, or a 20-character snapshot id.
func (r *repo) resolve(ctx context.Context, ref string) (id12, error) {
	if ref == "" {
		ref = "branch.main"
	}
	if id, ok := parseID12(ref); ok {
		return id, nil
	}
	kind, name, _ := strings.Cut(ref, ".")
	if (kind != "branch" && kind != "tag") || name == "" {
		return id12{}, fmt.Errorf("icechunk ref %q: want branch.NAME, tag.NAME or a 20-character snapshot id: %w", ref, fs.ErrInvalid)
	}
	if r.layout == layoutV2 {
		refs := r.info.branches
		if kind == "tag" {
			refs = r.info.tags
		}
		i, ok := refs[name]
		if !ok {
			why := ""
			if kind == "tag" && r.info.deletedTags[name] {
				why = "the tag was deleted"
			}
			return id12{}, r.errRefNotFound(ref, why)
		}
		return parseIDOrCorrupt(r.info.snapshots[i].info.ID)
	}
	dir := "refs/" + ref
	if strings.Contains(name, "/") || !fs.ValidPath(dir) {
		return id12{}, r.errRefNotFound(ref, "not a valid ref name")
	}
	if kind == "tag" {
		if ok, err := exists(ctx, r.base, dir+"/ref.json.deleted"); err != nil {
			return id12{}, err
		} else if ok {
			return id12{}, r.errRefNotFound(ref, "the tag was deleted")
		}
	}
	data, err := readFile(ctx, r.base, dir+"/ref.json", maxRefJSON)
	if errors.Is(err, fs.ErrNotExist) {
		if ok, err := exists(ctx, r.base, dir+"/ZZZZZZZZ.json"); err != nil {
			return id12{}, err
		} else if ok {
			return id12{}, fmt.Errorf("%s/ZZZZZZZZ.json: %w", dir, ErrLegacyFormat)
		}
		return id12{}, r.errRefNotFound(ref, "")
	}
	if err != nil {
		return id12{}, err
	}
	var doc struct {
		Snapshot string `json:"snapshot"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return id12{}, corruptf("%s/ref.json: %v", dir, err)
	}
	id, ok := parseID12(doc.Snapshot)
	if !ok {
		return id12{}, corruptf("%s/ref.json: bad snapshot id %q", dir, doc.Snapshot)
	}
	return id, nil
}

func parseIDOrCorrupt(s string) (id12, error) {
	id, ok := parseID12(s)
	if !ok {
		return id, corruptf("bad snapshot id %q", s)
	}
	return id, nil
}

// readSnapshot reads and decodes snapshots/<id>.
func (r *repo) readSnapshot(ctx context.Context, id id12, headerOnly bool) (*snapshot, error) {
	name := "snapshots/" + id.String()
	var s *snapshot
	err := r.readImmutable(ctx, name, func(data []byte) error {
		_, payload, err := decodeMetadata(name, data, fileSnapshot)
		if err != nil {
			return err
		}
		s, err = parseSnapshot(name, payload, headerOnly, r.lim.MaxEntries, r.lim.MaxNameLength)
		if err != nil {
			return err
		}
		if s.info.ID != id.String() {
			return corruptf("%s: holds snapshot %s", name, s.info.ID)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("icechunk snapshot %s not found: %w", id, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// history returns the ancestry of snapshot id, itself first. A v2
// repository answers from its repo file; v1 follows the parent ids of the
// snapshot files. A cycle is corrupt; the chain is at most
// Limits.MaxEntries long.
func (r *repo) history(ctx context.Context, id id12) ([]Snapshot, error) {
	if r.layout == layoutV2 {
		for i := range r.info.snapshots {
			if r.info.snapshots[i].info.ID != id.String() {
				continue
			}
			var out []Snapshot
			// A parent index chain longer than the list has a cycle.
			for j := i; j >= 0; j = r.info.snapshots[j].parent {
				if len(out) == len(r.info.snapshots) {
					return nil, corruptf("repo: the parents of snapshot %s form a cycle", id)
				}
				out = append(out, r.info.snapshots[j].info)
			}
			return out, nil
		}
		// Not listed in the repo file: follow the snapshot files.
	}
	var out []Snapshot
	seen := map[string]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(out) >= r.lim.MaxEntries {
			return nil, limitf("history of snapshot %s is longer than Limits.MaxEntries (%d)", out[0].ID, r.lim.MaxEntries)
		}
		s, err := r.readSnapshot(ctx, id, true)
		if err != nil {
			return nil, err
		}
		out = append(out, s.info)
		seen[s.info.ID] = true
		if s.info.ParentID == "" {
			return out, nil
		}
		if seen[s.info.ParentID] {
			return nil, corruptf("snapshots/%s: the parents form a cycle back to %s", s.info.ID, s.info.ParentID)
		}
		if id, err = parseIDOrCorrupt(s.info.ParentID); err != nil {
			return nil, err
		}
	}
}
