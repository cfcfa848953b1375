package vfs

import (
	"fmt"
	"slices"
	"strings"
)

// schemeRole says where a scheme may appear in a pipeline.
type schemeRole uint8

const (
	roleRoot    schemeRole = iota + 1 // only first
	roleAdapter                       // never first
	roleVendor                        // anywhere
)

// authForm says what the text after "//" is. It decides how a sub-URL is
// split, joined and resolved, and which [SubURL] accessors read it.
type authForm uint8

const (
	authNone     authForm = iota // "//" is not allowed
	authHost                     // host [":" port]; [SubURL.Host] and [SubURL.Port] read it
	authEndpoint                 // as authHost, and [SubURL.Bucket] reads the first path segment
	authBucket                   // a bucket; [SubURL.Bucket] reads it
	authVersion                  // a version; [SubURL.Version] reads it, and "scheme:@V/p" means "scheme://V/p"
	authKey                      // no host: the text after "//" is the path
	authOpaque                   // any text, not interpreted
)

// An authorityRule says what a scheme accepts as "//authority". The zero
// rule forbids it.
type authorityRule struct {
	form     authForm
	required bool // "//" must be present
	// check, when not nil, checks the authority of a sub-URL that has
	// "//" and whose characters are valid. It returns a message when the
	// authority is invalid.
	check func(scheme, auth string) string
}

// The authority rules of the standard schemes. A row may also hold a rule
// of its own.
var (
	hostAuthority      = authorityRule{form: authHost, required: true, check: hostCheck(false)}
	localHostAuthority = authorityRule{form: authHost, check: hostCheck(true)}
	endpointAuthority  = authorityRule{form: authEndpoint, required: true, check: hostCheck(false)}
	s3Authority        = authorityRule{form: authBucket, required: true, check: func(_, b string) string { return checkS3Bucket(b) }}
	gsAuthority        = authorityRule{form: authBucket, required: true, check: func(_, b string) string { return checkGSBucket(b) }}
	ocdbtAuthority     = authorityRule{form: authVersion, check: func(_, v string) string { return checkOCDBTVersion(v) }}
	icechunkAuthority  = authorityRule{form: authVersion, check: func(_, r string) string { return checkIcechunkRef(r) }}
	keyAuthority       = authorityRule{form: authKey, check: checkNoHost}
	opaqueAuthority    = authorityRule{form: authOpaque}
)

// hostCheck returns the check of an http-style authority, host [":"
// port]; emptyOK allows an empty host without a port.
func hostCheck(emptyOK bool) func(scheme, auth string) string {
	return func(scheme, auth string) string { return checkHost(scheme, auth, emptyOK) }
}

// checkNoHost checks the authority of an authKey scheme, which is always
// empty: the text after "//" is the path.
func checkNoHost(scheme, auth string) string {
	if auth != "" {
		return fmt.Sprintf("%s:// has no host; the text after // is the key", scheme)
	}
	return ""
}

// missing returns the message for a sub-URL of scheme that lacks the "//"
// its rule requires.
func (r authorityRule) missing(scheme string) string {
	if r.form == authBucket {
		return fmt.Sprintf(`%s needs "//" and a bucket: %s://bucket/path`, scheme, scheme)
	}
	return fmt.Sprintf(`%s needs "//" and a host`, scheme)
}

// pathRule says what a scheme accepts as its path.
type pathRule uint8

const (
	pathAny      pathRule = iota // any path
	pathNone                     // no path at all
	pathAbsolute                 // a path that starts with "/"
	pathRange                    // START-END in decimal; [SubURL.Range] reads it
	pathPointer                  // an RFC 6901 JSON pointer; [SubURL.Pointer] reads it
)

// check checks the path of a sub-URL of scheme, whose characters are
// valid. It returns a message when the path is invalid.
func (r pathRule) check(scheme, path string) string {
	switch r {
	case pathNone:
		if path != "" {
			return fmt.Sprintf("%s takes no path; write %s:", scheme, scheme)
		}
	case pathAbsolute:
		if !strings.HasPrefix(path, "/") {
			return fmt.Sprintf("%[1]s needs an absolute path: %[1]s:/p, %[1]s:///p or %[1]s://localhost/p", scheme)
		}
	case pathRange:
		_, _, msg := parseRange(path)
		return msg
	case pathPointer:
		return checkPointer(path)
	}
	return ""
}

// schemeInfo is one row of the scheme table: everything about one scheme
// that Parse, Resolve, the kind checks and the [SubURL] methods need.
type schemeInfo struct {
	name      string        // lower case
	role      schemeRole    // where the scheme may appear
	authority authorityRule // what "//authority" may be
	path      pathRule      // what the path may be
	query     bool          // "?query" is allowed
	base      Kind          // what the base must be (adapters only)
	yields    Kind          // what the sub-URL yields; KindAny means "by its path"
	dirReader bool          // reads a directory: the base gets a trailing "/" (SPEC 4 step 5)
	pkg       string        // import path of the package that implements it; "" if none does
	summary   string        // one line for help texts
}

// module is the import path of this module, the prefix of every pkg.
const module = "github.com/pipefs/pipefs"

// schemeRows is the scheme table: one row for each standard scheme of SPEC
// sections 1-3, and for each of the project's own vendor schemes
// (pipefs.*) that a package implements. Vendor schemes without a row are
// described by [vendorInfo].
//
// Every rule about a scheme's syntax and kinds is in its row, and Parse,
// Resolve, [SubURL.Kind], [SubURL.Join] and the other [SubURL] accessors
// read them from there: adding a standard scheme is one edit, a new row.
// The fields are:
//
//   - name: the scheme in lower case.
//   - role: root (only first), adapter (never first) or vendor (anywhere).
//   - authority: whether "//authority" is allowed or required, what it is
//     (a host, a bucket, a version, ...; see [authForm]) and the check of
//     its text. The zero rule forbids "//". A rule not among the shared
//     ones can be written in the row, with its own check function.
//   - path: what the path may be: anything, nothing, an absolute path, a
//     byte range or a JSON pointer.
//   - query: whether "?query" is allowed.
//   - base: the kind of resource an adapter needs as its base (KindUnknown
//     for roots and for anything).
//   - yields: the kind the sub-URL yields; KindAny means a directory when
//     the path is empty or ends in "/", else a file or a directory.
//   - dirReader: the adapter reads a directory, so Parse adds a trailing
//     "/" to a base whose kind follows its path.
//   - pkg: the import path of the package that implements the scheme, ""
//     when none does yet ([SchemePackage]).
//   - summary: a one-line description for help texts ([SchemeSummary]).
//
// Roots are listed in the order that error messages name them.
var schemeRows = []schemeInfo{
	// Roots: their kind follows the path.
	{name: "file", role: roleRoot, authority: localHostAuthority, path: pathAbsolute, yields: KindAny,
		pkg: module + "/roots/fileroot", summary: "local file or directory"},
	{name: "memory", role: roleRoot, authority: keyAuthority, yields: KindAny,
		pkg: module + "/roots/memroot", summary: "in-memory store, one per vfs.Cache"},
	{name: "http", role: roleRoot, authority: hostAuthority, query: true, yields: KindAny,
		pkg: module + "/roots/httproot", summary: "file on a web server, read with range requests"},
	{name: "https", role: roleRoot, authority: hostAuthority, query: true, yields: KindAny,
		pkg: module + "/roots/httproot", summary: "file on a web server over TLS, read with range requests"},
	{name: "s3", role: roleRoot, authority: s3Authority, yields: KindAny,
		pkg: module + "/roots/s3root", summary: "Amazon S3 bucket"},
	{name: "s3+http", role: roleRoot, authority: endpointAuthority, yields: KindAny,
		pkg: module + "/roots/s3root", summary: "S3-compatible endpoint over HTTP"},
	{name: "s3+https", role: roleRoot, authority: endpointAuthority, yields: KindAny,
		pkg: module + "/roots/s3root", summary: "S3-compatible endpoint over HTTPS"},
	{name: "gs", role: roleRoot, authority: gsAuthority, yields: KindAny,
		pkg: module + "/roots/gsroot", summary: "Google Cloud Storage bucket"},

	// Containers: their kind follows the path too.
	{name: "zip", role: roleAdapter, base: KindFile, yields: KindAny,
		pkg: module + "/adapters/zipadapter", summary: "zip archive"},
	{name: "ocdbt", role: roleAdapter, authority: ocdbtAuthority, base: KindDirectory, yields: KindAny, dirReader: true,
		pkg: module + "/adapters/ocdbtadapter", summary: "OCDBT database, at its latest or a given version"},
	{name: "icechunk", role: roleAdapter, authority: icechunkAuthority, base: KindDirectory, yields: KindAny, dirReader: true,
		pkg: module + "/adapters/icechunkadapter", summary: "Icechunk repository, at a branch, tag or snapshot"},

	// Byte transforms.
	{name: "byte-range", role: roleAdapter, path: pathRange, base: KindFile, yields: KindFile,
		pkg: module + "/adapters/rangeadapter", summary: "bytes [start, end) of a file"},
	{name: "gzip", role: roleAdapter, path: pathNone, base: KindFile, yields: KindFile,
		pkg: module + "/adapters/gzipadapter", summary: "gzip stream (multi-member)"},
	{name: "zstd", role: roleAdapter, path: pathNone, base: KindFile, yields: KindFile,
		pkg: module + "/adapters/zstdadapter", summary: "zstd stream (multi-frame)"},

	// Datasets read from one file.
	{name: "json", role: roleAdapter, path: pathPointer, base: KindFile, yields: KindDataset,
		pkg: module + "/adapters/jsonadapter", summary: "value of a JSON document at a JSON pointer"},
	{name: "hdf5", role: roleAdapter, base: KindFile, yields: KindDataset,
		pkg: module + "/adapters/hdf5adapter", summary: "HDF5 group or dataset"},
	{name: "avif", role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset,
		pkg: module + "/adapters/imageadapter", summary: "AVIF image, as decoded pixels"},
	{name: "bmp", role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset,
		pkg: module + "/adapters/imageadapter", summary: "BMP image, as decoded pixels"},
	{name: "jpeg", role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset,
		pkg: module + "/adapters/imageadapter", summary: "JPEG image, as decoded pixels"},
	{name: "png", role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset,
		pkg: module + "/adapters/imageadapter", summary: "PNG image, as decoded pixels"},
	{name: "tiff", role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset,
		pkg: module + "/adapters/imageadapter", summary: "TIFF image, as decoded pixels"},
	{name: "webp", role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset,
		pkg: module + "/adapters/imageadapter", summary: "WebP image, as decoded pixels"},

	// Datasets read from a directory.
	{name: "zarr", role: roleAdapter, base: KindDirectory, yields: KindDataset, dirReader: true,
		pkg: module + "/adapters/zarradapter", summary: "Zarr group or array, v2 or v3"},
	{name: "zarr2", role: roleAdapter, base: KindDirectory, yields: KindDataset, dirReader: true,
		pkg: module + "/adapters/zarradapter", summary: "Zarr v2 group or array"},
	{name: "zarr3", role: roleAdapter, base: KindDirectory, yields: KindDataset, dirReader: true,
		pkg: module + "/adapters/zarradapter", summary: "Zarr v3 group or array"},
	{name: "n5", role: roleAdapter, base: KindDirectory, yields: KindDataset, dirReader: true,
		pkg: module + "/adapters/n5adapter", summary: "N5 group or dataset"},
	{name: "neuroglancer-precomputed", role: roleAdapter, path: pathNone, base: KindDirectory, yields: KindDataset, dirReader: true,
		pkg: module + "/adapters/precomputedadapter", summary: "neuroglancer precomputed volume"},

	// The project's own vendor schemes. pipefs.tar behaves like zip; the
	// others have the syntax and kinds of every vendor scheme (vendorInfo).
	{name: "pipefs.tar", role: roleVendor, authority: opaqueAuthority, query: true, base: KindFile, yields: KindAny,
		pkg: module + "/adapters/taradapter", summary: "tar archive"},
	{name: "pipefs.bzip2", role: roleVendor, authority: opaqueAuthority, query: true, base: KindUnknown, yields: KindUnknown,
		pkg: module + "/adapters/bzip2adapter", summary: "bzip2 stream (multi-stream)"},
	{name: "pipefs.xz", role: roleVendor, authority: opaqueAuthority, query: true, base: KindUnknown, yields: KindUnknown,
		pkg: module + "/adapters/xzadapter", summary: "xz stream (multi-stream)"},
	{name: "pipefs.pages", role: roleVendor, authority: opaqueAuthority, query: true, base: KindUnknown, yields: KindUnknown,
		pkg: module + "/adapters/imageadapter", summary: "the pages of a paged image (TIFF) as page/N"},
}

// A schemeTable is a scheme table indexed by name.
type schemeTable struct {
	rows   []schemeInfo   // in table order
	byName map[string]int // index in rows
}

// newSchemeTable indexes rows. It panics if two rows have the same name.
func newSchemeTable(rows []schemeInfo) schemeTable {
	t := schemeTable{rows: rows, byName: make(map[string]int, len(rows))}
	for i, r := range rows {
		if _, dup := t.byName[r.name]; dup {
			panic("vfs: two rows for scheme " + r.name)
		}
		t.byName[r.name] = i
	}
	return t
}

// schemes is the scheme table that every parse and check reads.
var schemes = newSchemeTable(schemeRows)

// row returns the table row of the lower-case scheme s.
func (t schemeTable) row(s string) (schemeInfo, bool) {
	i, ok := t.byName[s]
	if !ok {
		return schemeInfo{}, false
	}
	return t.rows[i], true
}

// roots returns the names of the root schemes, in table order.
func (t schemeTable) roots() []string {
	var names []string
	for _, r := range t.rows {
		if r.role == roleRoot {
			names = append(names, r.name)
		}
	}
	return names
}

// dotdot is the scheme of the "..:" sub-URL of SPEC section 5.
const dotdot = ".."

// vendorInfo describes every vendor scheme that has no row in the table:
// anywhere in a pipeline, with any authority, path and query, and never a
// kind mismatch.
var vendorInfo = schemeInfo{role: roleVendor, authority: opaqueAuthority, query: true, base: KindUnknown, yields: KindUnknown}

// lookupScheme returns the table row of the lower-case scheme s, and
// false when s is neither standard nor vendor-shaped.
func lookupScheme(s string) (schemeInfo, bool) {
	if info, ok := schemes.row(s); ok {
		return info, true
	}
	if IsVendorScheme(s) {
		return vendorInfo, true
	}
	return schemeInfo{}, false
}

// IsRootScheme reports whether s (in any case) is one of the standard root
// schemes of SPEC section 2: file, memory, http, https, s3, s3+http,
// s3+https and gs. Vendor schemes may also be roots but are not reported here;
// see [IsVendorScheme].
func IsRootScheme(s string) bool {
	info, ok := schemes.row(strings.ToLower(s))
	return ok && info.role == roleRoot
}

// IsAdapterScheme reports whether s (in any case) is one of the standard
// adapter schemes of SPEC section 2, which never come first in a pipeline.
func IsAdapterScheme(s string) bool {
	info, ok := schemes.row(strings.ToLower(s))
	return ok && info.role == roleAdapter
}

// StandardSchemes returns, sorted, the standard root and adapter schemes of
// SPEC section 2 and the project's own vendor schemes (such as pipefs.tar)
// that the package knows the syntax of. The ".." of SPEC section 5 is not
// a scheme and is not listed.
func StandardSchemes() []string {
	names := make([]string, 0, len(schemes.rows))
	for _, r := range schemes.rows {
		names = append(names, r.name)
	}
	slices.Sort(names)
	return names
}

// SchemePackage returns the import path of the pipefs package that
// implements the scheme s (in any case), such as
// "github.com/pipefs/pipefs/adapters/zipadapter" for zip. Importing that
// package registers the scheme. It returns "" for a scheme that no pipefs
// package implements yet (such as hdf5) and for a scheme not listed by
// [StandardSchemes].
func SchemePackage(s string) string {
	info, _ := schemes.row(strings.ToLower(s))
	return info.pkg
}

// SchemeSummary returns a one-line description of the scheme s (in any
// case), such as "zip archive", for help texts. It returns "" for a scheme
// not listed by [StandardSchemes].
func SchemeSummary(s string) string {
	info, _ := schemes.row(strings.ToLower(s))
	return info.summary
}

// SchemeTakesPath reports whether a sub-URL of the scheme s (in any case)
// may have a path. It is false for the standard schemes whose grammar
// allows none, such as gzip, png and neuroglancer-precomputed, and for a
// string that is no scheme; a vendor scheme may have one (a vendor
// decompressor declares that it has none with Adapter.Stream).
func SchemeTakesPath(s string) bool {
	info, ok := lookupScheme(strings.ToLower(s))
	return ok && info.path != pathNone
}

// SchemeStart returns how a sub-URL of the scheme s (in any case) that
// names the top of its tree begins: "scheme:", then "//" when the grammar
// requires an authority ("s3://", "http://"), or "/" when it requires an
// absolute path ("file:/"). It returns "" for a string that is no scheme.
func SchemeStart(s string) string {
	s = strings.ToLower(s)
	info, ok := lookupScheme(s)
	switch {
	case !ok:
		return ""
	case info.authority.required:
		return s + "://"
	case info.path == pathAbsolute:
		return s + ":/"
	}
	return s + ":"
}

// IsVendorScheme reports whether s (in any case) has the shape of a vendor
// scheme, vendor "." name, where vendor is ALPHA *( ALPHA / DIGIT / "-" ) and
// name is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). The project's own
// schemes, such as pipefs.tar, are vendor schemes.
func IsVendorScheme(s string) bool {
	vendor, name, ok := strings.Cut(s, ".")
	if !ok || vendor == "" || name == "" || !isAlpha(vendor[0]) || !isAlpha(name[0]) {
		return false
	}
	for i := 1; i < len(vendor); i++ {
		if c := vendor[i]; !isAlpha(c) && !isDigit(c) && c != '-' {
			return false
		}
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// SchemeKinds reports what the scheme s (in any case) needs as its base and
// what it yields, following the table of SPEC section 2. A root has no base
// and reports KindUnknown for it. A yield of KindAny means that the kind
// follows the sub-URL's path (a directory if the path is empty or ends in
// "/", else a file or a directory settled at open time); use [SubURL.Kind]
// for the kind of a given sub-URL. Vendor schemes other than pipefs.tar
// report KindUnknown both ways. ok is false when s is not a valid scheme.
func SchemeKinds(s string) (base, yields Kind, ok bool) {
	info, ok := lookupScheme(strings.ToLower(s))
	if !ok {
		return KindUnknown, KindUnknown, false
	}
	return info.base, info.yields, true
}

// isScheme reports whether s matches scheme = ALPHA *( ALPHA / DIGIT / "+" /
// "-" / "." ).
func isScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
