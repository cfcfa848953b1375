package imageadapter

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// PagesScheme is the vendor scheme that presents the pages of a TIFF as a
// directory: "file:/d/x.tif|pipefs.pages:page/2" is the third page.
const PagesScheme = "pipefs.pages"

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: PagesScheme, OpenFile: openPages,
		Summary: "the pages of a TIFF as page/N, each decoded as tiff: decodes the first"})
}

// openPages opens the pages tree of a TIFF file at the sub-URL's path.
func openPages(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	c := codecs["tiff"]
	r := newInput(ctx, in, env.Cache, env.Key)
	if err := checkMagic(ctx, c, r, in, env); err != nil {
		return driver.Location{}, err
	}
	pages, err := tiffPages(ctx, r, min(maxPages, env.Limits.MaxEntries))
	if err != nil {
		return driver.Location{}, r.cause(err, classifyTIFF)
	}
	if len(pages) > min(maxPages, env.Limits.MaxEntries) {
		return driver.Location{}, driver.Limitf("tiff: more than %d pages; Limits.MaxEntries is %d", len(pages)-1, env.Limits.MaxEntries)
	}
	name := strings.Trim(u.DecodedPath(), "/")
	if name == "" {
		name = "."
	}
	if !fs.ValidPath(name) {
		return driver.Location{}, fmt.Errorf("%w: %q is not a page path (page/N)", fs.ErrInvalid, u.DecodedPath())
	}
	return driver.Location{Tree: &pagesTree{in: in, env: env, n: len(pages), info: in.Stat()}, Path: name}, nil
}

// pagesTree is the tree "." → "page/" → "0" ... "N-1".
type pagesTree struct {
	in   driver.Blob
	env  *vfs.Env
	n    int
	info fs.FileInfo

	mu    sync.Mutex
	blobs map[int]driver.Blob
}

func (t *pagesTree) dir(name string) fs.FileInfo {
	return &driver.FileInfo{FName: name, FMode: fs.ModeDir | 0o555, FModTime: t.info.ModTime()}
}

// page returns the page index name names ("page/N"), or -1 for a
// directory; an error for names that do not exist.
func (t *pagesTree) page(name string) (int, error) {
	switch name {
	case ".", "page":
		return -1, nil
	}
	num, ok := strings.CutPrefix(name, "page/")
	i, err := strconv.Atoi(num)
	if !ok || err != nil || i < 0 || i >= t.n || strconv.Itoa(i) != num {
		return 0, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: the TIFF has pages page/0 to page/%d", fs.ErrNotExist, t.n-1)}
	}
	return i, nil
}

// blob opens page i, once.
func (t *pagesTree) blob(ctx context.Context, i int) (driver.Blob, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b, ok := t.blobs[i]; ok {
		return b, nil
	}
	b, err := openImage(ctx, codecs["tiff"], t.in, i, strconv.Itoa(i), t.env)
	if err != nil {
		return nil, err
	}
	if t.blobs == nil {
		t.blobs = map[int]driver.Blob{}
	}
	t.blobs[i] = b
	return b, nil
}

func (t *pagesTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	i, err := t.page(name)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return t.dir(name), nil
	}
	b, err := t.blob(ctx, i)
	if err != nil {
		return nil, err
	}
	return b.Stat(), nil
}

func (t *pagesTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	i, err := t.page(name)
	if err != nil {
		return nil, err
	}
	if i >= 0 {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: driver.ErrNotDir}
	}
	if name == "." {
		return []fs.DirEntry{t.dir("page").(*driver.FileInfo)}, nil
	}
	ents := make([]fs.DirEntry, 0, t.n)
	for i := range t.n {
		b, err := t.blob(ctx, i)
		if err != nil {
			return nil, err
		}
		ents = append(ents, b.Stat().(*driver.FileInfo))
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

func (t *pagesTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	i, err := t.page(name)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: driver.ErrIsDir}
	}
	return t.blob(ctx, i)
}
