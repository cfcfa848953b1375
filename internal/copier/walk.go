package copier

import (
	"context"
	"io/fs"
	"path"
	"sync"
	"sync/atomic"
)

// parallel calls f(i) for every i from 0 to count-1, at most n calls at
// once, and returns when all have returned. The calls start in order of i.
func parallel(n, count int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(min(n, count), 0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= count {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// A walkNode is one entry of a tree that walkTree lists.
type walkNode struct {
	name    string
	info    fs.FileInfo
	err     error // of the entry's FileInfo
	dir     bool
	listErr error       // of listing the directory
	kids    []*walkNode // the directory's entries, in name order
}

// walkTree returns the entries of fsys, each directory before its
// entries and the entries of a directory in name order, as fs.WalkDir
// visits them, and calls fail for each entry whose FileInfo or listing
// failed, in that order too. It lists up to n directories at once, one
// level of the tree after the other, so that the listings of a tree of
// many directories on a remote root wait for their answers together; it
// makes the same listings as fs.WalkDir, one ReadDir per directory. It
// returns ctx's error when ctx is cancelled.
func walkTree(ctx context.Context, fsys fs.ReadDirFS, n int, fail func(error)) ([]item, error) {
	info, err := fs.Stat(fsys, ".")
	if err != nil {
		fail(err)
		return nil, nil
	}
	root := &walkNode{name: ".", info: info, dir: info.IsDir()}
	level := []*walkNode{root}
	for len(level) > 0 {
		parallel(n, len(level), func(i int) {
			d := level[i]
			if ctx.Err() != nil {
				return
			}
			ents, err := fsys.ReadDir(d.name)
			d.listErr = err
			for _, e := range ents {
				k := &walkNode{name: path.Join(d.name, e.Name()), dir: e.IsDir()}
				k.info, k.err = e.Info()
				d.kids = append(d.kids, k)
			}
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var next []*walkNode
		for _, d := range level {
			for _, k := range d.kids {
				if k.dir {
					next = append(next, k)
				}
			}
		}
		level = next
	}
	var items []item
	var visit func(d *walkNode)
	visit = func(d *walkNode) {
		if d.err != nil {
			fail(d.err)
		} else {
			items = append(items, item{name: d.name, info: d.info})
		}
		if d.listErr != nil {
			fail(d.listErr)
		}
		for _, k := range d.kids {
			visit(k)
		}
	}
	visit(root)
	return items, nil
}
