package complete

import (
	"context"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// maxChain bounds the byte transforms that a chain of adapters follows.
const maxChain = 4

// adapters completes the adapter being typed after base: prefix is what
// is typed of it. The adapters that fit base come first (see fitting);
// when none of them starts with prefix, every adapter that reads base's
// kind and does is offered.
func (c *Completer) adapters(ctx context.Context, base, prefix string) ([]string, error) {
	if base == "" {
		return nil, nil
	}
	fits, kind, err := c.fitting(ctx, base)
	if err != nil {
		return nil, err
	}
	lower := strings.ToLower(prefix)
	var out []string
	for _, a := range fits {
		if strings.HasPrefix(a, lower) {
			out = append(out, base+"|"+a)
		}
	}
	if len(out) > 0 || prefix == "" {
		return out, nil
	}
	for _, a := range c.reading(kind) {
		if strings.HasPrefix(a, lower) {
			out = append(out, base+"|"+a)
		}
	}
	return out, nil
}

// fitting returns the adapters (and chains of adapters) that fit the
// location base names, and its kind. A file's bytes are detected, and a
// detected byte transform is followed by what its output is detected as
// ("gzip:", "gzip:|pipefs.tar:"); a directory is matched against the
// registered directory formats. When nothing matches, the adapters that
// base's name suggests are offered, else every adapter that reads base's
// kind. When detection runs out of its time, the adapters that the name
// suggests are offered with what was detected by then.
func (c *Completer) fitting(ctx context.Context, base string) ([]string, vfs.Kind, error) {
	pl, err := c.placeOf(base)
	if err != nil {
		return nil, vfs.KindUnknown, err
	}
	dctx, cancel := detectContext(ctx)
	defer cancel()
	type result struct {
		fits []string
		kind vfs.Kind
	}
	r, _, err := within(dctx, func() (result, error) {
		fits, kind, err := c.detect(dctx, pl)
		return result{fits, kind}, err
	})
	fits, kind := r.fits, r.kind
	if err != nil {
		if dctx.Err() == nil || ctx.Err() != nil {
			return nil, kind, err
		}
		// Detection ran out of its time: what the name suggests.
		kind = pl.kind
		fits = merge(fits, c.named(pl, kind))
		if len(fits) == 0 {
			return nil, kind, err
		}
		return fits, kind, nil
	}
	if len(fits) == 0 {
		fits = c.named(pl, kind)
	}
	if len(fits) == 0 {
		fits = c.reading(kind)
	}
	return fits, kind, nil
}

// continuations adds to out the candidates that go on after the file
// name, the only entry that matches in the local directory typed as dir:
// open is dir as it is resolved ("./" for the current directory). See
// continuationsIn.
func (c *Completer) continuations(ctx context.Context, out []string, open, dir, name string) []string {
	pl := place{name: name, kind: vfs.KindFile}
	dctx, cancel := detectContext(ctx)
	defer cancel()
	fits, _, err := within(dctx, func() ([]string, error) {
		pipeline, err := c.resolve(open)
		if err != nil {
			return nil, err
		}
		fsys, err := vfs.OpenFS(dctx, pipeline, c.options())
		if err != nil {
			return nil, err
		}
		defer fsys.Close()
		return c.fileFits(fsys, pl, nil)
	})
	return c.addFits(out, dir, name, c.orNamed(ctx, fits, err, pl))
}

// continuationsIn adds to out the candidates that go on after the file
// name of fsys, the only entry that matches in the directory typed as
// dir: dir+name followed by each adapter chain that its bytes are
// detected as, or, when none is or detection runs out of time, that its
// name suggests. When detection is still running, done is closed once it
// ends, and fsys must stay open until then; else done is nil.
func (c *Completer) continuationsIn(ctx context.Context, out []string, fsys *vfs.FS, dir, name string) (_ []string, done <-chan struct{}) {
	pl := place{name: name, kind: vfs.KindFile}
	dctx, cancel := detectContext(ctx)
	defer cancel()
	fits, done, err := within(dctx, func() ([]string, error) {
		return c.fileFits(fsys.WithContext(dctx), pl, nil)
	})
	return c.addFits(out, dir, name, c.orNamed(ctx, fits, err, pl)), done
}

// orNamed returns fits, the chains detected for the file of pl before
// err, followed by what its name suggests when detection found nothing
// or did not end; nothing once ctx has ended.
func (c *Completer) orNamed(ctx context.Context, fits []string, err error, pl place) []string {
	if ctx.Err() != nil {
		return nil
	}
	if len(fits) == 0 || err != nil {
		fits = merge(fits, c.named(pl, vfs.KindFile))
	}
	return fits
}

// within runs f in a goroutine and returns what it returns, or, when
// ctx ends first, a channel that is closed once f ends and ctx's error
// (f must heed ctx, and whatever f uses must outlive it); done is nil
// when f has ended. A driver that is slow to notice a cancellation
// keeps no completion waiting.
func within[T any](ctx context.Context, f func() (T, error)) (_ T, done <-chan struct{}, err error) {
	type result struct {
		v   T
		err error
	}
	ended := make(chan struct{})
	res := make(chan result, 1)
	go func() {
		defer close(ended)
		v, err := f()
		res <- result{v, err}
	}()
	select {
	case r := <-res:
		return r.v, nil, r.err
	case <-ctx.Done():
		var zero T
		return zero, ended, ctx.Err()
	}
}

// addFits adds to out dir+name followed by each of fits, those it does
// not hold yet.
func (c *Completer) addFits(out []string, dir, name string, fits []string) []string {
	for _, f := range fits {
		if s := dir + escapeEntry(name) + "|" + f; !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// detectContext returns the context detection runs under: two thirds of
// the time left to ctx's deadline, so that what a name suggests can be
// offered in the rest.
func detectContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, time.Now().Add(time.Until(d)*2/3))
}

// named returns the adapter chains that the name of pl suggests after its
// adapters, by the extensions the adapters declare
// (Registry.ByExtension): a stream's extension is taken off and what is
// left suggests the next ("x.tar.bz2" suggests "pipefs.bzip2:" and
// "pipefs.bzip2:|pipefs.tar:"). The first adapter reads kind; KindUnknown
// takes either.
func (c *Completer) named(pl place, kind vfs.Kind) []string {
	var chains []string
	chain, name := "", pl.name
	for range maxChain {
		a := c.reg().ByExtension(name)
		if a == nil || kind != vfs.KindUnknown && a.Input() != kind {
			break
		}
		chain += a.Scheme + ":"
		chains = append(chains, chain)
		if !a.Stream {
			break
		}
		name = strings.TrimSuffix(name, path.Ext(name))
		chain += "|"
		kind = vfs.KindFile
	}
	if len(pl.adapters) == 0 {
		return chains
	}
	// What comes after the adapters already typed.
	typed := strings.Join(pl.adapters, "|") + "|"
	var out []string
	for _, s := range chains {
		if rest, ok := strings.CutPrefix(s, typed); ok {
			out = append(out, rest)
		}
	}
	return out
}

// merge returns a followed by the strings of b that a does not hold.
func merge(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// reading returns every registered adapter that reads kind, as "scheme:".
func (c *Completer) reading(kind vfs.Kind) []string {
	var out []string
	for _, s := range c.reg().Schemes() {
		if a := c.reg().Adapter(s); a != nil && a.Input() == kind {
			out = append(out, s+":")
		}
	}
	return out
}
