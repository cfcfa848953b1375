package vfs

import "strings"

// schemeRole says where a scheme may appear in a pipeline.
type schemeRole uint8

const (
	roleRoot    schemeRole = iota + 1 // only first
	roleAdapter                       // never first
	roleVendor                        // anywhere
)

// pathRule says what a scheme accepts as its path.
type pathRule uint8

const (
	pathAny  pathRule = iota // any path
	pathNone                 // no path at all
)

// schemeInfo is one row of the static table of standard schemes (SPEC
// sections 1-3).
type schemeInfo struct {
	role      schemeRole
	authority bool // "//authority" is allowed
	query     bool // "?query" is allowed
	path      pathRule
	base      Kind // what the base must be (adapters only)
	yields    Kind // what the sub-URL yields; KindAny means "by its path"
	dirReader bool // reads a directory: the base gets a trailing "/" (SPEC 4 step 5)
}

// schemes is the static table of the standard schemes. Vendor schemes
// (vendor "." name) are not listed; see [vendorInfo].
var schemes = map[string]schemeInfo{
	// Roots: their kind follows the path.
	"file":     {role: roleRoot, authority: true, yields: KindAny},
	"memory":   {role: roleRoot, authority: true, yields: KindAny},
	"http":     {role: roleRoot, authority: true, query: true, yields: KindAny},
	"https":    {role: roleRoot, authority: true, query: true, yields: KindAny},
	"s3":       {role: roleRoot, authority: true, yields: KindAny},
	"s3+http":  {role: roleRoot, authority: true, yields: KindAny},
	"s3+https": {role: roleRoot, authority: true, yields: KindAny},
	"gs":       {role: roleRoot, authority: true, yields: KindAny},

	// Containers: their kind follows the path too.
	"zip":      {role: roleAdapter, base: KindFile, yields: KindAny},
	"ocdbt":    {role: roleAdapter, authority: true, base: KindDirectory, yields: KindAny, dirReader: true},
	"icechunk": {role: roleAdapter, authority: true, base: KindDirectory, yields: KindAny, dirReader: true},

	// Byte transforms.
	"byte-range": {role: roleAdapter, base: KindFile, yields: KindFile},
	"gzip":       {role: roleAdapter, path: pathNone, base: KindFile, yields: KindFile},
	"zstd":       {role: roleAdapter, path: pathNone, base: KindFile, yields: KindFile},

	// Datasets read from one file.
	"json": {role: roleAdapter, base: KindFile, yields: KindDataset},
	"hdf5": {role: roleAdapter, base: KindFile, yields: KindDataset},
	"avif": {role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset},
	"bmp":  {role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset},
	"jpeg": {role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset},
	"png":  {role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset},
	"tiff": {role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset},
	"webp": {role: roleAdapter, path: pathNone, base: KindFile, yields: KindDataset},

	// Datasets read from a directory.
	"zarr":                     {role: roleAdapter, base: KindDirectory, yields: KindDataset, dirReader: true},
	"zarr2":                    {role: roleAdapter, base: KindDirectory, yields: KindDataset, dirReader: true},
	"zarr3":                    {role: roleAdapter, base: KindDirectory, yields: KindDataset, dirReader: true},
	"n5":                       {role: roleAdapter, base: KindDirectory, yields: KindDataset, dirReader: true},
	"neuroglancer-precomputed": {role: roleAdapter, path: pathNone, base: KindDirectory, yields: KindDataset, dirReader: true},

	// The project's own vendor scheme for tar archives behaves like zip.
	"pipefs.tar": {role: roleVendor, authority: true, query: true, base: KindFile, yields: KindAny},
}

// dotdot is the scheme of the "..:" sub-URL of SPEC section 5.
const dotdot = ".."

// vendorInfo describes every vendor scheme other than those in [schemes]:
// anywhere in a pipeline, with any authority, path and query, and never a
// kind mismatch.
var vendorInfo = schemeInfo{role: roleVendor, authority: true, query: true, base: KindUnknown, yields: KindUnknown}

// lookupScheme returns the table row of the lower-case scheme s, and
// false when s is neither standard nor vendor-shaped.
func lookupScheme(s string) (schemeInfo, bool) {
	if info, ok := schemes[s]; ok {
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
	info, ok := schemes[strings.ToLower(s)]
	return ok && info.role == roleRoot
}

// IsAdapterScheme reports whether s (in any case) is one of the standard
// adapter schemes of SPEC section 2, which never come first in a pipeline.
func IsAdapterScheme(s string) bool {
	info, ok := schemes[strings.ToLower(s)]
	return ok && info.role == roleAdapter
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
