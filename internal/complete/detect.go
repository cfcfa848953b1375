package complete

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/vfs"
)

// A place is where a typed base is: a name in a directory, read through
// adapters that take no path. "d/a.tar.gz|gzip:" is the name "a.tar.gz"
// in "file:/…/d/" through "gzip:".
type place struct {
	dir      string   // the canonical pipeline of the directory that holds name
	name     string   // an fs name in dir; "." for dir itself
	adapters []string // the sub-URLs after name, canonical ("gzip:")
	kind     vfs.Kind // what base is written as: KindDirectory with a trailing "/", else KindFile
}

// placeOf returns where base is.
func (c *Completer) placeOf(base string) (place, error) {
	s, err := c.resolve(base)
	if err != nil {
		return place{}, err
	}
	p, err := vfs.Parse(s)
	if err != nil {
		return place{}, err
	}
	i := len(p)
	for i > 1 && p[i-1].Path == "" && c.noPath(p[i-1].Scheme) {
		i--
	}
	pl := place{kind: vfs.KindFile}
	for _, u := range p[i:] {
		pl.adapters = append(pl.adapters, u.String())
	}
	u := p[i-1]
	if len(pl.adapters) == 0 && u.IsDir() {
		pl.kind = vfs.KindDirectory
	}
	if u.Key() == "." {
		pl.dir, pl.name = p[:i].String(), "."
		return pl, nil
	}
	trimmed := strings.TrimSuffix(u.Path, "/")
	cut := strings.LastIndexByte(trimmed, '/') + 1
	pl.name = vfs.SubURL{Scheme: u.Scheme, Path: trimmed[cut:]}.DecodedPath()
	u.Path = trimmed[:cut]
	pl.dir = p[:i-1].Append(u).String()
	return pl, nil
}

// detect opens the directory of pl, and in it what pl names, and returns
// the adapters that fit it (see fileFits and dirFits) and its kind.
func (c *Completer) detect(ctx context.Context, pl place) ([]string, vfs.Kind, error) {
	dir, err := vfs.OpenFS(ctx, pl.dir, c.options())
	if err != nil {
		return nil, vfs.KindUnknown, err
	}
	defer dir.Close()
	fsys, f, err := dir.OpenDetect(pl.name, pl.adapters...)
	if err != nil {
		return nil, vfs.KindUnknown, err
	}
	if fsys != nil {
		defer fsys.Close()
		fits, err := c.dirFits(ctx, fsys)
		return fits, vfs.KindDirectory, err
	}
	fits, err := c.fileFits(dir, pl, f)
	return fits, vfs.KindFile, err
}

// fileFits detects the format of the file that pl names in dir, and
// follows byte transforms: the chains of adapters it is detected as
// ("gzip:", "gzip:|pipefs.tar:"). Each layer is opened relative to dir.
// f is that file when it is open already, else nil; fileFits closes it.
// What was detected before an error comes with it; a file that no format
// matches gives none, and no error.
func (c *Completer) fileFits(dir *vfs.FS, pl place, f *vfs.File) ([]string, error) {
	adapters := slices.Clone(pl.adapters)
	var fits []string
	chain := ""
	for i := range maxChain {
		if f == nil {
			fsys, file, err := dir.OpenDetect(pl.name, adapters...)
			if err != nil {
				return fits, ctxErr(err)
			}
			if fsys != nil {
				fsys.Close()
				break // a directory: nothing to detect
			}
			f = file
		}
		u, err := c.reg().Detect(dir.Context(), fileBlob{f})
		f.Close()
		f = nil
		if err != nil {
			return fits, ctxErr(err)
		}
		chain += u.String()
		fits = append(fits, chain)
		if a := c.reg().Adapter(u.Scheme); a == nil || !a.Stream || i == maxChain-1 {
			break // at maxChain, a further layer would be opened for nothing
		}
		adapters = append(adapters, u.String())
		chain += "|"
	}
	return fits, nil
}

// dirFits returns the adapters of the registered directory formats that
// fsys matches: stores and datasets.
func (c *Completer) dirFits(ctx context.Context, fsys *vfs.FS) ([]string, error) {
	var fits []string
	for _, f := range c.reg().Formats() {
		if f.Input != vfs.KindDirectory || f.MatchDir == nil {
			continue
		}
		ok, err := f.MatchDir(ctx, fsTree{fsys})
		if err != nil {
			if ctxErr(err) != nil {
				return nil, err
			}
			continue
		}
		if ok && !slices.Contains(fits, f.Adapter) {
			fits = append(fits, f.Adapter)
		}
	}
	return fits, nil
}

// ctxErr returns err when it is a context's error, nil otherwise: a
// layer that fails to open or to detect ends a chain, a context that
// ends, the completion.
func ctxErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
