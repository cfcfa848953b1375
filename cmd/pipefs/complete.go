package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// defaultCompleteTimeout bounds one completion unless
// PIPEFS_COMPLETE_TIMEOUT says otherwise.
const defaultCompleteTimeout = 3 * time.Second

// completeTimeout returns how long one completion may take: the duration
// in PIPEFS_COMPLETE_TIMEOUT ("500ms", or a number of seconds), else
// defaultCompleteTimeout.
func completeTimeout() time.Duration {
	s := os.Getenv("PIPEFS_COMPLETE_TIMEOUT")
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		return time.Duration(f * float64(time.Second))
	}
	return defaultCompleteTimeout
}

// completeURL completes a pipeline argument, at whatever layer it ends:
//
//   - a local path or a root sub-URL ("memory:a/", "s3://b/p"): the
//     entries of its directory, and a container file also with the
//     adapter its extension names appended ("a.zip|zip:");
//   - after a "|": the adapters that fit the base, found by detecting its
//     bytes, chained through byte transforms ("a.tar.gz|" offers "gzip:"
//     and "gzip:|pipefs.tar:"), or by the store or dataset format of a
//     directory ("zarr3:" beside zarr.json), else by its extension, else
//     every adapter that reads the base's kind; after an adapter that
//     takes no path ("a.tar.gz|gzip:"), the next adapter;
//   - inside an adapter that holds entries (zip, pipefs.tar, ocdbt,
//     icechunk, zarr, ...): the entries of its directory;
//   - in the authority of "ocdbt://" or "icechunk://": the versions of
//     the database, the branches and tags of the repository.
//
// An entry name is written as a pipeline needs it: "%", "|", "#" and "?"
// become %25, %7C, %23 and %3F. A completion takes at most
// completeTimeout; one that fails or runs out of time offers nothing.
func (g *globals) completeURL(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, completeTimeout())
	defer cancel()
	type result struct {
		out []string
		err error
	}
	done := make(chan result, 1)
	go func() {
		c := &completer{g: g, ctx: ctx}
		out, err := c.complete(toComplete)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		return r.out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	case <-ctx.Done():
		// A driver that does not heed cancellation is left behind: the
		// process ends with the completion.
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
}

// completeURLs completes the first n arguments as pipelines (all of them
// when n < 0); the next ones get no completion, or the shell's file
// completion when localNext is set.
func (g *globals) completeURLs(n int, localNext bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if n >= 0 && len(args) >= n {
			if localNext {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return g.completeURL(cmd, args, toComplete)
	}
}

// A completer completes one argument. What it knows of a scheme beyond
// its syntax, it reads from the registry: the roots and adapters there,
// the extensions they declare, which adapters are streams; and from the
// store it opens, the versions of a versioned store.
type completer struct {
	g        *globals
	ctx      context.Context
	plain    bool          // list local paths only, no adapters
	registry *vfs.Registry // the schemes offered and opened; nil means DefaultRegistry
}

// reg is the registry whose schemes are offered and opened.
func (c *completer) reg() *vfs.Registry {
	if c.registry != nil {
		return c.registry
	}
	return registry(c.g.options())
}

// options are the open options of a completion: the global flags', with
// detection off, since what is typed names each layer, and the
// completer's registry.
func (c *completer) options() *vfs.Options {
	o := *c.g.options()
	o.NoDetect = true
	o.Registry = c.reg()
	return &o
}

// complete returns the candidates for text, each the whole argument.
func (c *completer) complete(text string) ([]string, error) {
	i := strings.LastIndexByte(text, '|')
	if i < 0 {
		return c.root(text)
	}
	base, cur := text[:i], text[i+1:]
	scheme, rest, colon := strings.Cut(cur, ":")
	if !colon {
		return c.adapters(base, scheme)
	}
	lower := strings.ToLower(scheme)
	if rest == "" && c.noPath(lower) {
		return c.adapters(text, "")
	}
	after := i + 1 + len(scheme) + 1 // after the colon
	if strings.HasPrefix(rest, "//") && !strings.Contains(rest[2:], "/") {
		// The authority is being typed: a version, where the scheme's
		// grammar writes one there (WithVersion("") fails where not).
		if _, err := (vfs.SubURL{Scheme: lower}).WithVersion(""); err == nil {
			return c.versions(base, text[:after+2], lower, rest[2:])
		}
	}
	return c.entries(text, after)
}

// noPath reports whether the registered adapter scheme takes no path, so
// that after "gzip:" comes the next adapter: a stream, or an adapter whose
// grammar allows no path (png:, neuroglancer-precomputed:).
func (c *completer) noPath(scheme string) bool {
	a := c.reg().Adapter(scheme)
	return a != nil && (a.Stream || !vfs.SchemeTakesPath(scheme))
}

// root completes the first sub-URL: a root URL's entries, a local path's,
// or, when no local name matches, the root schemes.
func (c *completer) root(text string) ([]string, error) {
	if scheme, _, ok := strings.Cut(text, ":"); ok && c.reg().Root(scheme) != nil {
		return c.entries(text, len(scheme)+1)
	}
	out, err := c.local(text)
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
// absolute.
func (c *completer) local(text string) ([]string, error) {
	cut := strings.LastIndexByte(text, '/') + 1
	dir, prefix := text[:cut], text[cut:]
	open := dir
	if open == "" {
		open = "."
	}
	ents, err := os.ReadDir(open)
	if err != nil {
		return nil, err
	}
	return c.list(dir, prefix, ents), nil
}

// entries completes text as a path in the directory of its last layer,
// whose path starts at start (after the scheme's colon).
func (c *completer) entries(text string, start int) ([]string, error) {
	if rest := text[start:]; strings.HasPrefix(rest, "//") {
		j := strings.IndexByte(rest[2:], '/')
		if j < 0 {
			return nil, nil // the authority is being typed
		}
		start += 2 + j + 1
	}
	cut := start + strings.LastIndexByte(text[start:], '/') + 1
	dir, prefix := text[:cut], text[cut:]
	pipeline, err := c.g.pipeline(dir)
	if err != nil {
		return nil, err
	}
	fsys, err := vfs.OpenFS(c.ctx, pipeline, c.options())
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	ents, err := fsys.ReadDir(".")
	if err != nil {
		return nil, err
	}
	return c.list(dir, prefix, ents), nil
}

// list returns dir joined with each entry whose written name starts with
// prefix: a directory with a trailing "/", a container file also with the
// adapter that its extension names.
func (c *completer) list(dir, prefix string, ents []fs.DirEntry) []string {
	var out []string
	for _, e := range ents {
		name := escapeEntry(e.Name())
		if !strings.HasPrefix(name, prefix) && !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 && isDirLink(dir, e.Name()) {
			out = append(out, dir+name+"/")
			continue
		}
		out = append(out, dir+name)
		if a := c.reg().ByExtension(e.Name()); a != nil && isContainer(a) && !c.plain {
			out = append(out, dir+name+"|"+a.Scheme+":")
		}
	}
	return out
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

// escapeEntry writes an entry name as a path segment of a pipeline that
// a person types: the characters with a structural meaning, "%", "|", "#"
// and "?", and control characters (a newline or a tab would split or cut
// the candidate in the completion protocol) are percent-encoded; the rest
// is left as it is, which vfs.ParseLoose reads.
func escapeEntry(name string) string {
	name = entryEscaper.Replace(name)
	if !strings.ContainsFunc(name, isControl) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if c := name[i]; isControl(rune(c)) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isControl reports whether r is an ASCII control character.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

var entryEscaper = strings.NewReplacer("%", "%25", "|", "%7C", "#", "%23", "?", "%3F")

// adapters completes the adapter being typed after base: prefix is what
// is typed of it. The adapters that fit base come first (see fitting);
// when none of them starts with prefix, every adapter that reads base's
// kind and does is offered.
func (c *completer) adapters(base, prefix string) ([]string, error) {
	if base == "" {
		return nil, nil
	}
	fits, kind, err := c.fitting(base)
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
// registered directory formats. When nothing matches, the adapter that
// base's extension names is offered, else every adapter that reads
// base's kind.
func (c *completer) fitting(base string) ([]string, vfs.Kind, error) {
	pipeline, err := c.g.pipeline(base)
	if err != nil {
		return nil, vfs.KindUnknown, err
	}
	f, err := vfs.Open(c.ctx, pipeline, c.options())
	if err != nil {
		return nil, vfs.KindUnknown, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, vfs.KindUnknown, err
	}
	var fits []string
	kind := vfs.KindFile
	if info.IsDir() {
		f.Close()
		kind = vfs.KindDirectory
		if fits, err = c.dirFormats(pipeline); err != nil {
			return nil, kind, err
		}
	} else {
		fits = c.fileFormats(pipeline, f)
	}
	if len(fits) == 0 {
		if a := c.reg().ByExtension(strings.TrimSuffix(base, "/")); a != nil && a.Input() == kind {
			fits = []string{a.Scheme + ":"}
		}
	}
	if len(fits) == 0 {
		fits = c.reading(kind)
	}
	return fits, kind, nil
}

// maxChain bounds the byte transforms that fitting follows.
const maxChain = 4

// fileFormats detects the format of the file f, which pipeline names, and
// follows byte transforms. It closes f.
func (c *completer) fileFormats(pipeline string, f *vfs.File) []string {
	var fits []string
	chain := ""
	for i := range maxChain {
		u, err := c.reg().Detect(c.ctx, fileBlob{f})
		f.Close()
		if err != nil {
			break
		}
		chain += u.String()
		fits = append(fits, chain)
		if a := c.reg().Adapter(u.Scheme); a == nil || !a.Stream || i == maxChain-1 {
			break // at maxChain, a further layer would be opened for nothing
		}
		pipeline += "|" + u.String()
		if f, err = vfs.Open(c.ctx, pipeline, c.options()); err != nil {
			break
		}
		chain += "|"
	}
	return fits
}

// dirFormats returns the adapters of the registered directory formats
// that the directory pipeline matches: stores (ocdbt, icechunk) and
// datasets (zarr, n5, neuroglancer precomputed).
func (c *completer) dirFormats(pipeline string) ([]string, error) {
	fsys, err := vfs.OpenFS(c.ctx, pipeline, c.options())
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	var fits []string
	for _, f := range c.reg().Formats() {
		if f.Input != vfs.KindDirectory || f.MatchDir == nil {
			continue
		}
		ok, err := f.MatchDir(c.ctx, fsTree{fsys})
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
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

// reading returns every registered adapter that reads kind, as "scheme:".
func (c *completer) reading(kind vfs.Kind) []string {
	var out []string
	for _, s := range c.reg().Schemes() {
		if a := c.reg().Adapter(s); a != nil && a.Input() == kind {
			out = append(out, s+":")
		}
	}
	return out
}

// isContainer reports whether the adapter a reads a file and yields a
// directory: an archive to step into. A vendor adapter whose kinds the
// grammar does not fix is one unless it is a stream.
func isContainer(a *vfs.Adapter) bool {
	_, yields, _ := vfs.SchemeKinds(a.Scheme)
	return a.Input() == vfs.KindFile && !a.Stream && (yields == vfs.KindAny || yields == vfs.KindDirectory || yields == vfs.KindUnknown)
}

// versions completes the authority of a store's sub-URL after base, such
// as "ocdbt://" or "icechunk://": the names of the store's versions when
// it has them (driver.RefLister: the branches and tags of an Icechunk
// repository, "branch.main/"), else the IDs of its versions
// (driver.Versioned: "v3/" of an OCDBT database), each written as the
// scheme writes a version (vfs.SubURL.WithVersion). head is the text up
// to the "//" included; prefix what is typed after it. A store that is
// not versioned gets nothing.
func (c *completer) versions(base, head, scheme, prefix string) ([]string, error) {
	pipeline, err := c.g.pipeline(base + "|" + scheme + ":")
	if err != nil {
		return nil, err
	}
	fsys, err := vfs.OpenFS(c.ctx, pipeline, c.options())
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	var ids []string
	var refs driver.RefLister
	var v driver.Versioned
	switch {
	case fsys.As(&refs):
		rs, err := refs.ListRefs(c.ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			ids = append(ids, r.Name)
		}
	case fsys.As(&v):
		vs, err := v.Versions(c.ctx)
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

// fileBlob is an open vfs.File as a driver.Blob, for detection.
type fileBlob struct{ f *vfs.File }

func (b fileBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return b.f.ReadAt(p, off)
}

// Stat describes the file; it is read before the file is closed.
func (b fileBlob) Stat() fs.FileInfo {
	info, _ := b.f.Stat()
	return info
}

// fsTree is a vfs.FS as a driver.Tree, for directory formats.
type fsTree struct{ fsys *vfs.FS }

func (t fsTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	return t.fsys.WithContext(ctx).Stat(name)
}

func (t fsTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return t.fsys.WithContext(ctx).ReadDir(name)
}

func (t fsTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	f, err := t.fsys.WithContext(ctx).OpenFile(name)
	if err != nil {
		return nil, err
	}
	return fileBlob{f}, nil
}
