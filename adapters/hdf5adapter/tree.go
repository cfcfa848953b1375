package hdf5adapter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "hdf5", OpenFile: openAdapter, Extensions: []string{".h5", ".hdf5"}})
	vfs.RegisterFormat(&vfs.Format{
		Name:    "hdf5",
		Adapter: "hdf5:",
		Input:   vfs.KindFile,
		Head:    4096 + len(signature),
		Match:   Match,
	})
}

// Match reports whether head, the first bytes of a file, holds the HDF5
// signature at 0, 512, 1024, 2048 or 4096 (after a user block). Opening
// searches further, at every power of two below the file's size.
func Match(head, _ []byte, _ int64) bool {
	for _, off := range []int{0, 512, 1024, 2048, 4096} {
		if len(head) >= off+len(signature) && string(head[off:off+len(signature)]) == signature {
			return true
		}
	}
	return false
}

func openAdapter(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	t, err := Open(ctx, in, env)
	if err != nil {
		return driver.Location{}, err
	}
	return driver.Location{Tree: t, Path: u.Key()}, nil
}

// Open reads the superblock of the HDF5 file in b and returns the file as
// a tree, within env's limits, keeping decoded chunks in env.Cache under
// env.Key. env may be nil (default limits, the default cache, nothing
// kept across opens).
func Open(ctx context.Context, b driver.Blob, env *vfs.Env) (driver.Tree, error) {
	lim := vfs.Limits{}.Effective()
	cache := vfs.DefaultCache()
	key := ""
	if env != nil {
		lim, key = env.Limits, env.Key
		if env.Cache != nil {
			cache = env.Cache
		}
	}
	f, err := openFile(ctx, b, lim, cache, key)
	if err != nil {
		return nil, err
	}
	if env != nil {
		f.url, f.opts = env.URL, env.Options
	}
	return &tree{f: f}, nil
}

// tree is an HDF5 file as a driver.Tree.
type tree struct {
	f *file
}

// target is what a name resolves to.
type target struct {
	path  string   // the HDF5 path it was reached by, "/a/b"
	addr  uint64   // its object header
	kind  int      // kindGroup or kindDataset
	chain []uint64 // the groups from the root to its parent
}

// resolve follows name (an fs name) from the root group.
func (t *tree) resolve(ctx context.Context, name string) (target, error) {
	cur := target{path: "/", addr: t.f.root, kind: kindGroup}
	if name == "." || name == "" {
		return cur, nil
	}
	if !fs.ValidPath(name) {
		return cur, fs.ErrInvalid
	}
	elems := strings.Split(name, "/")
	for _, el := range elems {
		if cur.kind != kindGroup {
			return cur, fmt.Errorf("%s is a dataset, not a group: %w", cur.path, fs.ErrNotExist)
		}
		ls, err := t.f.groupLinks(ctx, cur.addr)
		if err != nil {
			return cur, err
		}
		k := ls.find(el)
		if k == nil {
			return cur, fs.ErrNotExist
		}
		hops := maxSoftHops
		next, err := t.follow(ctx, cur, k, &hops)
		if err != nil {
			return cur, err
		}
		cur = next
	}
	return cur, nil
}

// follow resolves link k of the group at parent. hops is what is left of
// the soft links that one resolution may follow.
func (t *tree) follow(ctx context.Context, parent target, k *link, hops *int) (target, error) {
	next := target{path: path.Join(parent.path, k.name), chain: append(slices.Clip(parent.chain), parent.addr)}
	switch k.typ {
	case linkHard:
		next.addr = k.addr
	case linkSoft:
		if *hops <= 0 {
			return next, fmt.Errorf("soft link %s: more than %d links followed: %w", next.path, maxSoftHops, fs.ErrNotExist)
		}
		*hops--
		dest, err := t.resolvePath(ctx, parent, k.target, hops)
		if err != nil {
			return next, fmt.Errorf("soft link %s to %s: %w", next.path, k.target, err)
		}
		next.addr = dest.addr
	case linkExternal:
		return next, fmt.Errorf("%s is an external link to %s in %s, which is not followed: %w", next.path, k.target, k.file, fs.ErrNotExist)
	default:
		return next, fs.ErrNotExist
	}
	o, err := t.f.object(ctx, next.addr)
	if err != nil {
		return next, err
	}
	switch next.kind = o.kind(); next.kind {
	case kindGroup, kindDataset:
		return next, nil
	case kindDatatype:
		return next, fmt.Errorf("%s is a committed datatype, not listed: %w", next.path, fs.ErrNotExist)
	}
	return next, fmt.Errorf("%s is neither a group nor a dataset: %w", next.path, fs.ErrNotExist)
}

// resolvePath resolves an HDF5 path (a soft link's target), absolute or
// relative to the group from.
func (t *tree) resolvePath(ctx context.Context, from target, p string, hops *int) (target, error) {
	cur := from
	if strings.HasPrefix(p, "/") {
		cur = target{path: "/", addr: t.f.root, kind: kindGroup}
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." {
			continue
		}
		if cur.kind != kindGroup {
			return cur, fmt.Errorf("%s is a dataset, not a group: %w", cur.path, fs.ErrNotExist)
		}
		ls, err := t.f.groupLinks(ctx, cur.addr)
		if err != nil {
			return cur, err
		}
		k := ls.find(el)
		if k == nil {
			return cur, fs.ErrNotExist
		}
		if cur, err = t.follow(ctx, cur, k, hops); err != nil {
			return cur, err
		}
	}
	return cur, nil
}

func (t *tree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	tg, err := t.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	return t.info(ctx, tg, path.Base(name), true)
}

// info describes a group or dataset.
func (t *tree) info(ctx context.Context, tg target, name string, full bool) (*driver.FileInfo, error) {
	o, err := t.f.object(ctx, tg.addr)
	if err != nil {
		return nil, err
	}
	fi := &driver.FileInfo{FName: name, FModTime: o.mtime}
	if tg.kind == kindGroup {
		g, err := t.group(ctx, tg, o, full)
		if err != nil {
			return nil, err
		}
		fi.FMode, fi.FSys = fs.ModeDir|0o555, g
		return fi, nil
	}
	d, err := t.f.dataset(ctx, tg.addr)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", tg.path, err)
	}
	ds, err := d.describe(ctx, tg.path)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", tg.path, err)
	}
	fi.FMode, fi.FSize, fi.FSys = 0o444, d.size(), ds
	return fi, nil
}

// group describes the group tg; its links only when full.
func (t *tree) group(ctx context.Context, tg target, o *object, full bool) (*Group, error) {
	attrs, err := t.f.attributes(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("group %s: %w", tg.path, err)
	}
	g := &Group{Path: tg.path, Address: tg.addr, Attributes: attrs}
	if !full {
		return g, nil
	}
	ls, err := t.f.groupLinks(ctx, tg.addr)
	if err != nil {
		return nil, err
	}
	g.Links = make([]Link, 0, len(ls.list))
	for i := range ls.list {
		k := &ls.list[i]
		l := exportLink(*k)
		g.Links = append(g.Links, l)
		switch {
		case !t.validName(k.name):
			l.Reason = "not a valid file name"
		case k.typ != linkHard && k.typ != linkSoft && k.typ != linkExternal:
			l.Reason = "user-defined link"
		case k.typ == linkHard:
			if o, err := t.f.object(ctx, k.addr); err == nil && o.kind() == kindDatatype {
				l.Reason = "committed datatype"
			}
		}
		if l.Reason != "" {
			g.Omitted = append(g.Omitted, l)
		}
	}
	return g, nil
}

func exportLink(k link) Link {
	l := Link{Name: k.name, Type: "hard"}
	switch k.typ {
	case linkSoft:
		l.Type, l.Target = "soft", k.target
	case linkExternal:
		l.Type, l.Target, l.File = "external", k.target, k.file
	case linkHard:
	default:
		l.Type = fmt.Sprintf("user-defined %d", k.typ)
	}
	return l
}

// validName reports whether a link name can be an fs name.
func (t *tree) validName(name string) bool {
	return driver.SafePath(name) && !strings.Contains(name, "/") && len(name) <= t.f.lim.MaxNameLength
}

func (t *tree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	tg, err := t.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	if tg.kind != kindGroup {
		return nil, driver.ErrNotDir
	}
	ls, err := t.f.groupLinks(ctx, tg.addr)
	if err != nil {
		return nil, err
	}
	onPath := append(slices.Clip(tg.chain), tg.addr)
	var out []fs.DirEntry
	for i := range ls.list {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := &ls.list[i]
		if !t.validName(k.name) {
			continue
		}
		fi, err := t.entry(ctx, tg, k, onPath)
		if err != nil {
			return nil, err
		}
		if fi != nil {
			out = append(out, fi)
		}
	}
	return out, nil
}

// entry describes link k of the group tg for a directory listing: nil for
// a link that is not listed (a committed datatype, a user-defined link).
func (t *tree) entry(ctx context.Context, tg target, k *link, onPath []uint64) (*driver.FileInfo, error) {
	sym := func(sys any) *driver.FileInfo {
		return &driver.FileInfo{FName: k.name, FMode: fs.ModeSymlink | 0o444, FSys: sys}
	}
	switch k.typ {
	case linkExternal:
		return sym(&ExternalLink{File: k.file, Path: k.target}), nil
	case linkHard, linkSoft:
	default:
		return nil, nil
	}
	hops := maxSoftHops
	next, err := t.follow(ctx, tg, k, &hops)
	if err != nil {
		if k.typ == linkSoft && !isLimitOrCtx(err) {
			return sym(&SoftLink{Path: k.target}), nil
		}
		if isNotExist(err) {
			return nil, nil
		}
		if !isLimitOrCtx(err) && !isIO(err) {
			return unreadable(k.name, next, err), nil
		}
		return nil, err
	}
	if next.kind == kindGroup && slices.Contains(onPath, next.addr) {
		typ := "hard"
		if k.typ == linkSoft {
			typ = "soft"
		}
		return sym(&CycleLink{Path: t.pathOf(onPath, next.addr, tg.path), Type: typ}), nil
	}
	fi, err := t.info(ctx, next, k.name, false)
	if err != nil && !isLimitOrCtx(err) && !isIO(err) {
		return unreadable(k.name, next, err), nil
	}
	return fi, err
}

// unreadable is the entry of an object that does not parse: one object
// does not hide its siblings. It is listed as an irregular file, and Stat
// or Open of it fails with err.
func unreadable(name string, tg target, err error) *driver.FileInfo {
	return &driver.FileInfo{FName: name, FMode: fs.ModeIrregular | 0o444,
		FSys: &Unreadable{Path: tg.path, Address: tg.addr, Err: err.Error()}}
}

// isIO reports an error that is neither about the file's bytes nor about
// what this package reads: an I/O error of the input.
func isIO(err error) bool {
	return !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, errors.ErrUnsupported) &&
		!errors.Is(err, fs.ErrNotExist) && !errors.Is(err, driver.ErrNotDir)
}

// pathOf returns the path of the group addr on the path onPath to dir.
func (t *tree) pathOf(onPath []uint64, addr uint64, dir string) string {
	i := slices.Index(onPath, addr)
	p := dir
	for range len(onPath) - 1 - i {
		p = path.Dir(p)
	}
	return p
}

func (t *tree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	tg, err := t.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	if tg.kind == kindGroup {
		return nil, driver.ErrIsDir
	}
	fi, err := t.info(ctx, tg, path.Base(name), true)
	if err != nil {
		return nil, err
	}
	return &dsBlob{d: fi.FSys.(*Dataset).info, info: fi}, nil
}

// dsBlob is the file of a dataset.
type dsBlob struct {
	d    *dsInfo
	info *driver.FileInfo
}

func (b *dsBlob) Stat() fs.FileInfo { return b.info }

func (b *dsBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return b.d.readAt(ctx, p, off)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func isLimitOrCtx(err error) bool {
	return errors.Is(err, driver.ErrLimit) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
