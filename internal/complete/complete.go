package complete

import (
	"context"
	"io/fs"
	"os"
	"strings"

	"github.com/pipefs/pipefs/vfs"
)

// A Completer completes pipeline arguments. Its zero value completes with
// the default registry and reads what is typed with vfs.ParseLoose.
type Completer struct {
	// Options are the options pipelines are opened with; detection is
	// turned off whatever they say. Their Registry names the schemes
	// offered; nil means vfs.DefaultRegistry.
	Options *vfs.Options
	// Resolve turns typed text, a whole pipeline or the part before a
	// "|", into a canonical pipeline (a local path as vfs.FromPath
	// writes it); nil means vfs.ParseLoose's.
	Resolve func(text string) (string, error)
}

// Complete returns the candidates for text, the argument typed so far,
// each the whole argument (see the package doc). It returns ctx's error
// once ctx is done, even if a driver goes on.
func (c *Completer) Complete(ctx context.Context, text string) ([]string, error) {
	type result struct {
		out []string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := c.complete(ctx, text)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		// A driver that does not heed cancellation is left behind.
		return nil, ctx.Err()
	}
}

// reg is the registry whose schemes are offered and opened.
func (c *Completer) reg() *vfs.Registry {
	if c.Options != nil && c.Options.Registry != nil {
		return c.Options.Registry
	}
	return vfs.DefaultRegistry
}

// options are the open options of a completion: c's, with detection off.
func (c *Completer) options() *vfs.Options {
	var o vfs.Options
	if c.Options != nil {
		o = *c.Options
	}
	o.NoDetect = true
	return &o
}

// resolve turns typed text into a canonical pipeline.
func (c *Completer) resolve(text string) (string, error) {
	if c.Resolve != nil {
		return c.Resolve(text)
	}
	p, err := vfs.ParseLoose(text)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

// complete returns the candidates for text, each the whole argument.
func (c *Completer) complete(ctx context.Context, text string) ([]string, error) {
	i := strings.LastIndexByte(text, '|')
	if i < 0 {
		return c.root(ctx, text)
	}
	base, cur := text[:i], text[i+1:]
	scheme, rest, colon := strings.Cut(cur, ":")
	if !colon {
		return c.adapters(ctx, base, scheme)
	}
	lower := strings.ToLower(scheme)
	if rest == "" && c.noPath(lower) {
		return c.adapters(ctx, text, "")
	}
	after := i + 1 + len(scheme) + 1 // after the colon
	if strings.HasPrefix(rest, "//") && !strings.Contains(rest[2:], "/") {
		// The authority is being typed: a version, where the scheme's
		// grammar writes one there (WithVersion("") fails where not).
		if _, err := (vfs.SubURL{Scheme: lower}).WithVersion(""); err == nil {
			return c.versions(ctx, base, text[:after+2], lower, rest[2:])
		}
	}
	return c.entries(ctx, text, after)
}

// noPath reports whether the registered adapter scheme takes no path, so
// that after "gzip:" comes the next adapter: a stream, or an adapter whose
// grammar allows no path (png:, neuroglancer-precomputed:).
func (c *Completer) noPath(scheme string) bool {
	a := c.reg().Adapter(scheme)
	return a != nil && (a.Stream || !vfs.SchemeTakesPath(scheme))
}

// root completes the first sub-URL: a root URL's entries, a local path's,
// or, when no local name matches, the root schemes.
func (c *Completer) root(ctx context.Context, text string) ([]string, error) {
	if scheme, _, ok := strings.Cut(text, ":"); ok && c.reg().Root(scheme) != nil {
		return c.entries(ctx, text, len(scheme)+1)
	}
	out, err := c.local(ctx, text)
	if len(out) > 0 || strings.Contains(text, "/") {
		return out, err
	}
	for _, s := range c.reg().Schemes() {
		if c.reg().Root(s) != nil && strings.HasPrefix(s, strings.ToLower(text)) {
			out = append(out, vfs.SchemeStart(s))
		}
	}
	return out, nil
}

// local completes a local path, relative to the current directory or
// absolute: the entries as Local lists them, and the continuations of a
// lone file.
func (c *Completer) local(ctx context.Context, text string) ([]string, error) {
	dir, prefix := splitDir(text, 0)
	ents, err := readLocalDir(dir)
	if err != nil {
		return nil, err
	}
	out := c.list(dir, prefix, ents, false)
	if e := lone(dir, prefix, ents); e != nil {
		open := dir
		if open == "" {
			open = "./"
		}
		out = c.continuations(ctx, out, open, dir, e.Name())
	}
	return out, nil
}

// entries completes text as a path in the directory of its last layer,
// whose path starts at start (after the scheme's colon).
func (c *Completer) entries(ctx context.Context, text string, start int) ([]string, error) {
	if rest := text[start:]; strings.HasPrefix(rest, "//") {
		j := strings.IndexByte(rest[2:], '/')
		if j < 0 {
			return nil, nil // the authority is being typed
		}
		start += 2 + j + 1
	}
	dir, prefix := splitDir(text, start)
	pipeline, err := c.resolve(dir)
	if err != nil {
		return nil, err
	}
	fsys, err := vfs.OpenFS(ctx, pipeline, c.options())
	if err != nil {
		return nil, err
	}
	var detecting <-chan struct{}
	defer func() {
		if detecting == nil {
			fsys.Close()
			return
		}
		go func() { <-detecting; fsys.Close() }()
	}()
	ents, err := fsys.ReadDir(".")
	if err != nil {
		return nil, err
	}
	out := c.list(dir, prefix, ents, false)
	if e := lone(dir, prefix, ents); e != nil {
		out, detecting = c.continuationsIn(ctx, out, fsys, dir, e.Name())
	}
	return out, nil
}

// splitDir splits text after its last "/" at or after start: the
// directory part, kept as typed, and the prefix of a name in it.
func splitDir(text string, start int) (dir, prefix string) {
	cut := start + strings.LastIndexByte(text[start:], '/') + 1
	return text[:cut], text[cut:]
}

// list returns dir joined with each entry whose written name starts with
// prefix: a directory with a trailing "/", a container file also with the
// adapter that its extension names unless plain is set.
func (c *Completer) list(dir, prefix string, ents []fs.DirEntry, plain bool) []string {
	var out []string
	for _, e := range ents {
		if !matches(e, prefix) {
			continue
		}
		name := escapeEntry(e.Name())
		if isDir(dir, e) {
			out = append(out, dir+name+"/")
			continue
		}
		out = append(out, dir+name)
		if plain {
			continue
		}
		if a := c.reg().ByExtension(e.Name()); a != nil && isContainer(a) {
			out = append(out, dir+name+"|"+a.Scheme+":")
		}
	}
	return out
}

// matches reports whether the entry's name, as written or as it is,
// starts with prefix.
func matches(e fs.DirEntry, prefix string) bool {
	return strings.HasPrefix(escapeEntry(e.Name()), prefix) || strings.HasPrefix(e.Name(), prefix)
}

// isDir reports whether the entry of dir is listed as a directory: one,
// or a local symbolic link that leads to one.
func isDir(dir string, e fs.DirEntry) bool {
	return e.IsDir() || e.Type()&fs.ModeSymlink != 0 && isDirLink(dir, e.Name())
}

// lone returns the entry of dir that is the only one to match prefix
// when it is not listed as a directory, else nil.
func lone(dir, prefix string, ents []fs.DirEntry) fs.DirEntry {
	var found fs.DirEntry
	for _, e := range ents {
		if !matches(e, prefix) {
			continue
		}
		if found != nil {
			return nil
		}
		found = e
	}
	if found == nil || isDir(dir, found) {
		return nil
	}
	return found
}

// isDirLink reports whether the local symbolic link name in dir leads to
// a directory.
func isDirLink(dir, name string) bool {
	if strings.Contains(dir, ":") {
		return false
	}
	info, err := os.Stat(dir + name)
	return err == nil && info.IsDir()
}

// isContainer reports whether the adapter a reads a file and yields a
// directory: an archive to step into. A vendor adapter whose kinds the
// grammar does not fix is one unless it is a stream.
func isContainer(a *vfs.Adapter) bool {
	_, yields, _ := vfs.SchemeKinds(a.Scheme)
	return a.Input() == vfs.KindFile && !a.Stream && (yields == vfs.KindAny || yields == vfs.KindDirectory || yields == vfs.KindUnknown)
}
