package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Root opens the first sub-URL of a pipeline.
type Root struct {
	// Scheme is the lower-case scheme, such as "file". Options for the
	// root are kept under it in Options.Schemes.
	Scheme string
	// Also lists more schemes the root serves with the same Open and the
	// same options, such as "https" beside "http".
	Also []string
	// Open returns the location u names: a tree and a path in it, or a
	// blob. It need not check that the path exists; the engine does when a
	// later stage or the caller needs it.
	Open func(ctx context.Context, u SubURL, env *Env) (driver.Location, error)
	// Options is a nil value of the type the root reads from
	// Options.Schemes, such as (*s3root.Options)(nil); nil if it reads none.
	Options any
	// Summary is one line for help listings; "" means the scheme table's
	// (SchemeSummary), which vendor schemes outside pipefs are not in.
	Summary string
	// Durable says that the root's objects outlive the process, and so
	// do the versions its blobs name (driver.Fingerprinter): a file's
	// inode and times, an object's ETag. What drivers derive from them
	// is then kept on disk for later processes (Env.DiskIndex,
	// Env.DiskObject). A root whose objects live in the process
	// (memory:), or whose versions count something of one process,
	// leaves it false, and nothing read from it is kept on disk.
	Durable bool
	// Local says that the root reads the local file system, as fast as
	// a copy on disk is read: Env.DiskObject keeps no copy of an object
	// of a store that is a directory of the root itself, and a program
	// may ask whether a local object changed at every read.
	Local bool
	// FollowsLinks says that the root's trees hold symbolic links that
	// opening a path follows, as a local file system does: a program
	// that wants the link itself (ls -l of a link) looks it up in its
	// parent directory (FS.Lstat). See Registry.FollowsLinks.
	FollowsLinks bool
}

// An Adapter opens an adapter sub-URL over what its base yields. It sets
// exactly one of OpenFile and OpenDir, which says what kind of base it
// reads; the engine checks the kind before calling it.
type Adapter struct {
	// Scheme is the lower-case scheme, such as "zip".
	Scheme string
	// OpenFile opens u over a file: a blob.
	OpenFile func(ctx context.Context, in driver.Blob, u SubURL, env *Env) (driver.Location, error)
	// OpenDir opens u over a directory: a tree rooted at it.
	OpenDir func(ctx context.Context, in driver.Tree, u SubURL, env *Env) (driver.Location, error)
	// Options is a nil value of the type the adapter reads from
	// Options.Schemes, such as (*icechunkadapter.Options)(nil); nil if it
	// reads none.
	Options any
	// Summary is one line for help listings; "" means the scheme table's
	// (SchemeSummary), which vendor schemes outside pipefs are not in.
	Summary string
	// Extensions are the file name extensions that name what the
	// adapter reads, in lower case with their dot, as path.Ext gives
	// them: ".zip", ".tgz", ".zarr" for a directory. A name that ends in
	// one suggests the adapter (Registry.ByExtension), as shell
	// completion offers "a.zip|zip:"; format detection never reads them.
	// One extension belongs to one adapter of a registry.
	Extensions []string
	// Stream says that the adapter decodes the file it reads into one
	// file, the whole of its output, and that its sub-URL takes no path:
	// a decompressor (gzip:, zstd:). What it yields is a file to detect
	// again ("a.tar.gz|" completes to "gzip:|pipefs.tar:"). A Stream
	// adapter sets OpenFile.
	Stream bool
	// DecodeHead, for a Stream, decodes the first bytes of its output
	// from head, the first bytes of its input: at most n bytes, as far as
	// head goes. It costs memory bounded by n, whatever the stream's
	// header declares, and refuses (with what decoded, and an error) a
	// stream that opening would refuse for lim, such as a window over
	// lim.MaxWindow. A listing uses it to tell what a compressed file
	// holds from its head alone ("gzip|tar"). Nil when the adapter cannot.
	DecodeHead func(head []byte, n int, lim Limits) ([]byte, error)
	// FollowsLinks says that the trees the adapter yields hold symbolic
	// links that opening a path follows (a tar archive), as
	// Root.FollowsLinks says of a root's. An adapter whose trees hold
	// links that opening does not follow (a zip archive) leaves it false.
	FollowsLinks bool
}

// Input returns the kind of base the adapter reads: KindFile or
// KindDirectory.
func (a *Adapter) Input() Kind {
	if a.OpenDir != nil {
		return KindDirectory
	}
	return KindFile
}

// An Env is what the engine gives a root's or an adapter's Open besides
// its input.
type Env struct {
	// URL is the canonical pipeline of the input, every sub-URL before the
	// one being opened ("" for a root). It names the input in messages.
	URL string
	// Key names the bytes of the input, for what a driver caches across
	// opens (an archive's index, a stream's checkpoints): URL, then the
	// version of every blob the input was read from that names one
	// (driver.Fingerprinter). A blob that names none inherits the versions
	// of the blobs it was derived from (an archive member, a decompressed
	// stream), or, derived from none, counts by its size and modification
	// time. A replaced object gets a new Key, so it never meets an index
	// of the old one. Key is "" when URL is "", and URL alone from NewEnv;
	// a directory input adds no version, so a driver that reads a tree
	// validates what it keeps of it itself.
	Key string
	// Limits are the limits in effect, as Limits.Effective gives them:
	// defaults filled in, and a field set to "no limit" at the largest
	// value of its type, so a driver compares against them directly.
	Limits Limits
	// Cache holds what outlives this open; never nil.
	Cache *Cache
	// Options are the options the pipeline is opened with; never nil. A
	// driver that opens another pipeline (a store's virtual chunks) passes
	// them on.
	Options *Options

	scheme  any  // the driver's own entry of Options.Schemes
	durable bool // Key names a version that outlives the process
	// side is the pipeline's first blob when it keeps sidecars, and
	// sideURL its sub-URL (see Options.Sidecar).
	side    driver.Sidecars
	sideURL string
}

// A Format is a signature that format auto-detection matches. For a file
// input, Match sees up to Head bytes from the start and up to Tail bytes
// from the end of the file (fewer when the file is shorter; the two may
// overlap). For a directory input, MatchDir inspects the tree.
type Format struct {
	// Name of the format, for messages ("zip", "gzip", "zarr v3").
	Name string
	// Adapter is the sub-URL appended when the format matches, such as
	// "zip:" or "gzip:". It must parse as an adapter sub-URL.
	Adapter string
	// Input is KindFile or KindDirectory.
	Input Kind
	// Offset and Magic give a fixed signature for a file input: the
	// bytes at Offset equal Magic, where '?' in Magic matches any byte.
	// Leave Magic empty and set Match for anything else.
	Offset int
	Magic  string
	// Head and Tail are the numbers of bytes Match wants to see.
	Head, Tail int
	// Match reports whether a file input has this format. While the
	// input's size is not known (see Registry.Detect), a format with no
	// Tail is matched on the head alone and size is the head's length.
	Match func(head, tail []byte, size int64) bool
	// Hint is a signature at offset 0 ('?' matches any byte) that marks
	// a file as this format even when Match rejects it, as a zip's first
	// local header marks a zip whose end record was cut off. Detection
	// that finds no format picks the one format whose Hint matches, so
	// that opening reports the format's own error instead of calling the
	// file unknown; Sniff names it in errors. Empty means none.
	Hint string
	// MatchDir reports whether a directory input has this format.
	MatchDir func(ctx context.Context, t driver.Tree) (bool, error)
	// Dataset marks a directory format whose adapter presents a dataset
	// inside an ordinary tree (zarr, n5): it is appended only when a
	// dataset is asked for. A directory format without it (ocdbt,
	// icechunk) is a store whose files are its internals, so OpenFS
	// appends it to a directory location that matches.
	Dataset bool
}

// A Registry holds roots, adapters and formats. The zero value is an empty
// registry ready to use; it is safe for concurrent use. Most programs use
// DefaultRegistry, where the standard schemes register themselves in init.
//
// What the engine and the pipefs command decide about a scheme, beyond its
// syntax (the scheme table of the grammar), they read from what its driver
// registered: a Root's Durable, Local and FollowsLinks, an Adapter's
// Extensions, Stream, DecodeHead and FollowsLinks, a Format's Dataset. What is learnt
// only once a store is open, its versions and their names, a driver's
// tree declares by the optional interfaces of package driver
// (driver.Versioned, driver.RefLister). So nothing outside a driver needs
// to name its scheme.
type Registry struct {
	mu         sync.RWMutex
	roots      map[string]*Root
	adapters   map[string]*Adapter
	extensions map[string]*Adapter
	formats    []*Format
	values     map[any]any // see Value
}

// DefaultRegistry is the registry used when Options.Registry is nil.
// Importing the module's root package registers the local roots and every
// adapter in it; importing github.com/pipefs/pipefs/all registers every
// scheme that pipefs implements.
var DefaultRegistry = new(Registry)

// RegisterRoot adds a root to DefaultRegistry. It panics if r is invalid or
// its scheme is already registered.
func RegisterRoot(r *Root) { DefaultRegistry.RegisterRoot(r) }

// RegisterAdapter adds an adapter to DefaultRegistry. It panics if a is
// invalid or its scheme is already registered.
func RegisterAdapter(a *Adapter) { DefaultRegistry.RegisterAdapter(a) }

// RegisterFormat adds a format signature to DefaultRegistry. Formats are
// tried in registration order. It panics if f is invalid or its name is
// already registered.
func RegisterFormat(f *Format) { DefaultRegistry.RegisterFormat(f) }

func checkScheme(kind, s string) {
	if s == "" || s != strings.ToLower(s) {
		panic(fmt.Sprintf("vfs: Register%s: scheme %q must be non-empty lower case", kind, s))
	}
	if !IsRootScheme(s) && !IsAdapterScheme(s) && !IsVendorScheme(s) {
		panic(fmt.Sprintf("vfs: Register%s: %q is neither a standard nor a vendor scheme", kind, s))
	}
}

// RegisterRoot adds a root under its Scheme and its Also schemes. It panics
// if r is nil, has no Open, has a scheme that is not a root or vendor
// scheme, or one already registered.
func (g *Registry) RegisterRoot(r *Root) {
	if r == nil || r.Open == nil {
		panic("vfs: RegisterRoot: nil root or Open")
	}
	all := append([]string{r.Scheme}, r.Also...)
	for _, s := range all {
		checkScheme("Root", s)
		if IsAdapterScheme(s) {
			panic(fmt.Sprintf("vfs: RegisterRoot: %q is an adapter scheme", s))
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range all {
		if g.roots[s] != nil {
			panic(fmt.Sprintf("vfs: RegisterRoot called twice for %q", s))
		}
	}
	if g.roots == nil {
		g.roots = make(map[string]*Root)
	}
	for _, s := range all {
		g.roots[s] = r
	}
}

// RegisterAdapter adds an adapter. It panics if a is nil, sets not exactly
// one of OpenFile and OpenDir, reads another kind of base than the grammar
// gives its scheme, has a root scheme, or is already registered; if it is
// a Stream that reads no file, or whose standard scheme's grammar gives it
// a path or another output than a file; if it sets DecodeHead and is no
// Stream; or if it declares an extension
// that is no lower-case ".name", or that another adapter declared.
func (g *Registry) RegisterAdapter(a *Adapter) {
	if a == nil || (a.OpenFile == nil) == (a.OpenDir == nil) {
		panic("vfs: RegisterAdapter: nil adapter, or not exactly one of OpenFile and OpenDir")
	}
	checkScheme("Adapter", a.Scheme)
	if IsRootScheme(a.Scheme) {
		panic(fmt.Sprintf("vfs: RegisterAdapter: %q is a root scheme", a.Scheme))
	}
	if base, _, ok := SchemeKinds(a.Scheme); ok && base != KindUnknown && base != a.Input() {
		panic(fmt.Sprintf("vfs: RegisterAdapter %q: the grammar says it reads a %v", a.Scheme, base))
	}
	if info, _ := lookupScheme(a.Scheme); a.Stream && (a.OpenFile == nil || info.role != roleVendor && (info.path != pathNone || info.yields != KindFile)) {
		panic(fmt.Sprintf("vfs: RegisterAdapter %q: a Stream reads a file and yields one, and takes no path", a.Scheme))
	}
	if a.DecodeHead != nil && !a.Stream {
		panic(fmt.Sprintf("vfs: RegisterAdapter %q: DecodeHead without Stream", a.Scheme))
	}
	for _, e := range a.Extensions {
		if len(e) < 2 || e[0] != '.' || e != strings.ToLower(e) || strings.ContainsAny(e[1:], "./") {
			panic(fmt.Sprintf("vfs: RegisterAdapter %q: extension %q: want a lower-case \".name\"", a.Scheme, e))
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.adapters[a.Scheme]; dup {
		panic(fmt.Sprintf("vfs: RegisterAdapter called twice for %q", a.Scheme))
	}
	for _, e := range a.Extensions {
		if b := g.extensions[e]; b != nil {
			panic(fmt.Sprintf("vfs: RegisterAdapter %q: extension %q is %q's", a.Scheme, e, b.Scheme))
		}
	}
	if g.adapters == nil {
		g.adapters = make(map[string]*Adapter)
		g.extensions = make(map[string]*Adapter)
	}
	g.adapters[a.Scheme] = a
	for _, e := range a.Extensions {
		g.extensions[e] = a
	}
}

// RegisterFormat adds a format signature; formats are tried in the order
// they were registered. It panics if f is nil, is incomplete, or has a name
// already registered.
func (g *Registry) RegisterFormat(f *Format) {
	if f == nil || f.Name == "" {
		panic("vfs: RegisterFormat: nil format or empty name")
	}
	switch f.Input {
	case KindFile:
		if f.Magic == "" && f.Match == nil {
			panic(fmt.Sprintf("vfs: RegisterFormat %q: needs Magic or Match", f.Name))
		}
	case KindDirectory:
		if f.MatchDir == nil {
			panic(fmt.Sprintf("vfs: RegisterFormat %q: needs MatchDir", f.Name))
		}
	default:
		panic(fmt.Sprintf("vfs: RegisterFormat %q: Input must be KindFile or KindDirectory", f.Name))
	}
	if _, err := parseAdapter(f.Adapter); err != nil {
		panic(fmt.Sprintf("vfs: RegisterFormat %q: bad adapter %q: %v", f.Name, f.Adapter, err))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.formats {
		if h.Name == f.Name {
			panic(fmt.Sprintf("vfs: RegisterFormat called twice for %q", f.Name))
		}
	}
	g.formats = append(g.formats, f)
}

// Schemes returns the registered root and adapter schemes, sorted.
func (g *Registry) Schemes() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	s := append(sortedKeys(g.roots), sortedKeys(g.adapters)...)
	slices.Sort(s)
	return s
}

// Summary returns the one-line description of a registered scheme: its
// registration's Summary, else the scheme table's; "" when it has none.
func (g *Registry) Summary(scheme string) string {
	g.mu.RLock()
	r, a := g.roots[scheme], g.adapters[scheme]
	g.mu.RUnlock()
	switch {
	case r != nil && r.Summary != "":
		return r.Summary
	case a != nil && a.Summary != "":
		return a.Summary
	}
	return SchemeSummary(scheme)
}

// Root returns the root registered under scheme (in any case), one of its
// Scheme and Also, or nil when there is none. The Root is the registered
// one, which the caller must not change.
func (g *Registry) Root(scheme string) *Root {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.roots[strings.ToLower(scheme)]
}

// Adapter returns the adapter registered under scheme (in any case), or
// nil when there is none. The Adapter is the registered one, which the
// caller must not change.
func (g *Registry) Adapter(scheme string) *Adapter {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.adapters[strings.ToLower(scheme)]
}

// ByExtension returns the adapter that declared the extension of name
// (path.Ext, in any case) among its Extensions, or nil when none did.
func (g *Registry) ByExtension(name string) *Adapter {
	ext := strings.ToLower(path.Ext(name))
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.extensions[ext]
}

// FollowsLinks reports whether opening what p names follows symbolic
// links on its last stage: p is a root alone that declares
// Root.FollowsLinks, or ends in an adapter that declares
// Adapter.FollowsLinks. Where it does not, a symbolic link that p names
// opens as itself or fails, and is never what a link leads to.
func (g *Registry) FollowsLinks(p Pipeline) bool {
	switch {
	case len(p) == 0:
		return false
	case len(p) == 1:
		r := g.Root(p[0].Scheme)
		return r != nil && r.FollowsLinks
	}
	a := g.Adapter(p[len(p)-1].Scheme)
	return a != nil && a.FollowsLinks
}

// durable reports whether scheme is the scheme of a registered root that
// declares Root.Durable.
func (g *Registry) durable(scheme string) bool {
	r := g.Root(scheme)
	return r != nil && r.Durable
}

// Formats returns the registered formats in detection order.
func (g *Registry) Formats() []*Format {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return slices.Clone(g.formats)
}

// unknown returns the error for a scheme that g has no driver for. For a
// scheme that a pipefs package implements it names that package, and the
// package that registers every scheme.
func (g *Registry) unknown(scheme string) error {
	schemes := g.Schemes()
	registered := strings.Join(schemes, ", ")
	if pkg := SchemePackage(scheme); pkg != "" {
		return fmt.Errorf("%w %q: import _ %q (or %s/all); registered schemes are %s",
			ErrUnknownScheme, scheme, pkg, module, registered)
	}
	if near := nearestScheme(scheme, schemes); near != "" {
		return fmt.Errorf("%w %q: did you mean %q? registered schemes are %s",
			ErrUnknownScheme, scheme, near, registered)
	}
	return fmt.Errorf("%w %q: registered schemes are %s (forgotten import?)",
		ErrUnknownScheme, scheme, registered)
}

// SuggestScheme adds to a SyntaxError about an unknown scheme the nearest
// scheme registered in o's registry ("tar" → "pipefs.tar"); other errors
// are returned as they are. o may be nil (DefaultRegistry). OpenFS,
// OpenFile and Open apply it to what Parse returns; a program that parses
// or resolves pipelines itself applies it to those errors.
func SuggestScheme(err error, o *Options) error {
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.HasPrefix(se.Msg, "unknown scheme") {
		return err
	}
	scheme, _, ok := strings.Cut(se.Sub, ":")
	if !ok {
		return err
	}
	near := nearestScheme(scheme, o.registry().Schemes())
	if near == "" {
		return err
	}
	e := *se
	e.Msg += fmt.Sprintf("; did you mean %q?", near)
	return &e
}

// nearestScheme returns the scheme among schemes (sorted) that s most
// likely meant, or "": one whose name after its vendor prefix is s ("tar"
// for "pipefs.tar"), else the closest within two edits, of the whole name
// or of the part after the prefix ("gzp" for "gzip", "bz2" for
// "pipefs.bzip2"). Ties go to the first in order.
func nearestScheme(s string, schemes []string) string {
	s = strings.ToLower(s)
	for _, c := range schemes {
		if i := strings.LastIndexByte(c, '.'); i >= 0 && c[i+1:] == s {
			return c
		}
	}
	best, bestD := "", 3
	for _, c := range schemes {
		d := editDistance(s, c)
		if i := strings.LastIndexByte(c, '.'); i >= 0 {
			d = min(d, editDistance(s, c[i+1:]))
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkOptions checks the keys and values of o.Schemes: a key is a
// lower-case scheme; the value of a registered scheme (nil aside) has the
// type its driver declared; a registered scheme that takes no options has
// none. A key that names a scheme nobody registered in g is ignored, so
// that one configuration serves programs that import different drivers; a
// key that is no scheme at all is an error.
func (g *Registry) checkOptions(o *Options) error {
	if o == nil {
		return nil
	}
	if o.Sidecar < SidecarOff || o.Sidecar > SidecarWrite {
		return fmt.Errorf("%w: Options.Sidecar %d: want SidecarOff, SidecarRead or SidecarWrite", fs.ErrInvalid, int(o.Sidecar))
	}
	for k, v := range o.Schemes {
		if k != strings.ToLower(k) {
			return fmt.Errorf("%w: Options.Schemes[%q]: keys are lower-case scheme names", fs.ErrInvalid, k)
		}
		var want any
		g.mu.RLock()
		r, a := g.roots[k], g.adapters[k]
		g.mu.RUnlock()
		switch {
		case r != nil:
			want = r.Options
		case a != nil:
			want = a.Options
		case isScheme(k) && (IsVendorScheme(k) || SchemeSummary(k) != ""):
			continue // a scheme this program does not use
		default:
			return fmt.Errorf("%w: Options.Schemes[%q]: not a scheme", fs.ErrInvalid, k)
		}
		if v == nil {
			continue
		}
		if want == nil {
			return fmt.Errorf("%w: Options.Schemes[%q]: the %s scheme takes no options", fs.ErrInvalid, k, k)
		}
		if reflect.TypeOf(v) != reflect.TypeOf(want) {
			return fmt.Errorf("%w: Options.Schemes[%q] is a %T; the %s scheme reads a %T", fs.ErrInvalid, k, v, k, want)
		}
	}
	return nil
}

// root returns the root registered under scheme, or the error of an
// unknown scheme.
func (g *Registry) root(scheme string) (*Root, error) {
	if r := g.Root(scheme); r != nil {
		return r, nil
	}
	return nil, g.unknown(scheme)
}

// adapter returns the adapter registered under scheme, or the error of
// an unknown scheme.
func (g *Registry) adapter(scheme string) (*Adapter, error) {
	if a := g.Adapter(scheme); a != nil {
		return a, nil
	}
	return nil, g.unknown(scheme)
}

// parseAdapter parses one adapter sub-URL on its own. It is parsed after a
// vendor root, whose kind is unknown, so that no base kind is assumed.
func parseAdapter(s string) (SubURL, error) {
	p, err := Parse("pipefs.adapter:|" + s)
	if err != nil {
		return SubURL{}, err
	}
	if len(p) != 2 {
		return SubURL{}, fmt.Errorf("%q is not one adapter sub-URL", s)
	}
	return p[1], nil
}

// NewEnv returns the Env that the engine gives a driver opened over the
// input that url names, under o (nil means defaults). It is for calling a
// driver's Open directly, as its tests do; the options of scheme are the
// driver's own, unchecked. Its Key is url, with no version.
func NewEnv(url, scheme string, o *Options) *Env {
	if o == nil {
		o = new(Options)
	}
	return &Env{URL: url, Key: url, Limits: o.limits(), Cache: o.cache(), Options: o, scheme: o.Schemes[scheme]}
}
