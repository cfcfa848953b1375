package hdf5adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// vdsDepthKey is the context key of the number of virtual datasets a read
// goes through (a virtual dataset whose source is virtual).
type vdsDepthKey struct{}

// maxVDSDepth bounds the nesting of virtual datasets, so that sources that
// map each other end.
const maxVDSDepth = 8

// A vdsSource is the source dataset of a mapping, open for one read.
type vdsSource struct {
	dims  []int64
	read  func(ctx context.Context, p []byte, off int64) (int, error)
	close func()
}

// readVirtual reads a virtual dataset: the fill value, then the elements
// of each mapping that fall in p, read from its source.
func (d *dsInfo) readVirtual(ctx context.Context, p []byte, off int64) (int, error) {
	maps, err := d.mappings(ctx)
	if err != nil {
		return 0, err
	}
	depth, _ := ctx.Value(vdsDepthKey{}).(int)
	if depth >= maxVDSDepth {
		return 0, driver.Limitf("virtual datasets nested more than %d deep (sources that map each other?)", maxVDSDepth)
	}
	ctx = context.WithValue(ctx, vdsDepthKey{}, depth+1)
	d.fillBytes(p, off)
	es := int64(d.es)
	end := off + int64(len(p))
	for _, m := range maps {
		if err := d.readMapping(ctx, m, p, off, end, es); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// readMapping copies the elements of mapping m between the bytes off and
// end of the virtual dataset into p.
func (d *dsInfo) readMapping(ctx context.Context, m *vdsMap, p []byte, off, end, es int64) error {
	vruns, err := m.virt.runs(d.dims)
	if err != nil {
		return err
	}
	if len(vruns) == 0 {
		return nil
	}
	first, last := vruns[0].off*es, (vruns[len(vruns)-1].off+vruns[len(vruns)-1].n)*es
	if last <= off || first >= end {
		return nil // the mapping is outside the read: its source is not opened
	}
	src, err := d.openSource(ctx, m)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a missing source reads as the fill value, as in libhdf5
	}
	if err != nil {
		return err
	}
	defer src.close()
	m.once.Do(func() {
		var sruns []run
		if sruns, m.err = m.src.runs(src.dims); m.err == nil {
			m.segs, m.err = zipRuns(vruns, sruns)
		}
		if m.err != nil {
			m.err = fmt.Errorf("mapping of %s %s: %w", m.file, m.dataset, m.err)
		}
	})
	if m.err != nil {
		return m.err
	}
	segs := m.segs
	i := sort.Search(len(segs), func(i int) bool { return (segs[i].virt+segs[i].n)*es > off })
	for ; i < len(segs) && segs[i].virt*es < end; i++ {
		s := segs[i]
		a, b := max(off, s.virt*es), min(end, (s.virt+s.n)*es)
		n, err := src.read(ctx, p[a-off:b-off], s.src*es+a-s.virt*es)
		if err == io.EOF && int64(n) == b-a {
			err = nil
		}
		if err != nil {
			return fmt.Errorf("source %s %s of the virtual dataset: %w", m.file, m.dataset, err)
		}
	}
	return nil
}

// openSource opens the source dataset of m: in this file when its file
// is ".", else in the file of that name beside this one, opened with the
// same pipeline options. Any other source (an absolute file name, a name
// with printf-style patterns, or a file opened without a pipeline) is
// refused, naming the file.
func (d *dsInfo) openSource(ctx context.Context, m *vdsMap) (*vdsSource, error) {
	name := strings.TrimPrefix(path.Clean("/"+m.dataset), "/")
	if strings.Contains(m.file, "%") || strings.Contains(m.dataset, "%") {
		return nil, fmt.Errorf("%w: virtual dataset source %q %q: printf-style names", errors.ErrUnsupported, m.file, m.dataset)
	}
	if m.file == "." {
		t := &tree{f: d.f}
		tg, err := t.resolve(ctx, name)
		if err != nil {
			return nil, err
		}
		if tg.kind != kindDataset {
			return nil, fmt.Errorf("virtual dataset source %s is a group: %w", m.dataset, driver.ErrCorrupt)
		}
		sd, err := d.f.dataset(ctx, tg.addr)
		if err != nil {
			return nil, err
		}
		swap, err := d.sameType(sd.es, sd.dtype, m)
		if err != nil {
			return nil, err
		}
		src := &vdsSource{dims: sd.dims, read: sd.readAt, close: func() {}}
		if swap {
			src.read = swapped(src.read, d.es)
		}
		return src, nil
	}
	if d.f.url == "" || path.IsAbs(m.file) || strings.HasPrefix(m.file, `\`) || (len(m.file) > 1 && m.file[1] == ':') {
		return nil, fmt.Errorf("%w: virtual dataset source file %q: pipefs reads sources in the same file (\".\") or in a file beside it, named relative to it", errors.ErrUnsupported, m.file)
	}
	base, err := vfs.Parse(d.f.url)
	if err != nil {
		return nil, err
	}
	var esc []string
	for _, el := range strings.Split(name, "/") {
		esc = append(esc, url.PathEscape(el))
	}
	fileRef := (&url.URL{Path: m.file}).EscapedPath()
	q, err := base.Resolve(fileRef + "|hdf5:" + strings.Join(esc, "/"))
	if err != nil {
		return nil, fmt.Errorf("virtual dataset source file %q: %w", m.file, err)
	}
	f, err := vfs.Open(ctx, q.String(), d.f.opts)
	if err != nil {
		return nil, fmt.Errorf("virtual dataset source file %q: %w", m.file, err)
	}
	info, err := f.Stat()
	var sd *Dataset
	swap := false
	if err == nil {
		if o, ok := info.Sys().(*vfs.Origin); ok {
			sd, _ = o.Header.(*Dataset)
		}
		if sd == nil {
			err = fmt.Errorf("virtual dataset source %q %q is not an HDF5 dataset: %w", m.file, m.dataset, driver.ErrCorrupt)
		} else {
			swap, err = d.sameType(int(sd.DType.Size), sd.DType, m)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	src := &vdsSource{
		dims:  sd.Shape,
		read:  func(_ context.Context, p []byte, off int64) (int, error) { return f.ReadAt(p, off) },
		close: func() { f.Close() },
	}
	if swap {
		src.read = swapped(src.read, d.es)
	}
	return src, nil
}

// sameType checks that a source holds elements of the virtual dataset's
// type, or integers or floats of the same size in the other byte order
// (swap is then true): pipefs converts no other type, as libhdf5 does.
func (d *dsInfo) sameType(es int, t DType, m *vdsMap) (swap bool, err error) {
	if es == d.es && t.NumPy == d.dtype.NumPy {
		return false, nil
	}
	a, b := t.NumPy, d.dtype.NumPy
	if es == d.es && len(a) >= 2 && len(b) >= 2 && a[1:] == b[1:] && strings.ContainsRune("iuf", rune(a[1])) &&
		(a[0] == '<' && b[0] == '>' || a[0] == '>' && b[0] == '<') {
		return true, nil
	}
	return false, fmt.Errorf("%w: virtual dataset source %s %s holds %s elements, the virtual dataset %s (pipefs converts only the byte order of numbers)",
		errors.ErrUnsupported, m.file, m.dataset, t.String(), d.dtype.String())
}

// swapped returns read with the bytes of each element of size es
// reversed. Reads are of whole elements at element boundaries.
func swapped(read func(context.Context, []byte, int64) (int, error), es int) func(context.Context, []byte, int64) (int, error) {
	return func(ctx context.Context, p []byte, off int64) (int, error) {
		n, err := read(ctx, p, off)
		for i := 0; i+es <= n; i += es {
			slices.Reverse(p[i : i+es])
		}
		return n, err
	}
}
