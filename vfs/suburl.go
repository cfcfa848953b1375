package vfs

import (
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/internal/rfc3986"
)

// Append returns a new pipeline made of p followed by u. It never shares
// its backing array with p.
func (p Pipeline) Append(u ...SubURL) Pipeline {
	q := make(Pipeline, 0, len(p)+len(u))
	q = append(q, p...)
	return append(q, u...)
}

// Kind returns what u yields, by SPEC section 2: for the roots, zip, ocdbt,
// icechunk and pipefs.tar, [KindDirectory] if the path is empty or ends in
// "/" and [KindAny] otherwise; the fixed kind of the other standard
// adapters; and [KindUnknown] for other vendor schemes and unknown schemes.
func (u SubURL) Kind() Kind {
	info, ok := lookupScheme(u.Scheme)
	if !ok {
		return KindUnknown
	}
	if info.yields == KindAny && u.IsDir() {
		return KindDirectory
	}
	return info.yields
}

// BaseKind returns what u needs as its base, by SPEC section 2:
// [KindUnknown] for roots, vendor schemes other than pipefs.tar, and
// unknown schemes.
func (u SubURL) BaseKind() Kind {
	info, ok := lookupScheme(u.Scheme)
	if !ok || info.role == roleRoot {
		return KindUnknown
	}
	return info.base
}

// IsDir reports whether u's path is empty or ends in "/", which makes a
// root, zip, ocdbt, icechunk or pipefs.tar sub-URL a directory.
func (u SubURL) IsDir() bool {
	return u.Path == "" || strings.HasSuffix(u.Path, "/")
}

// DecodedPath returns u's path with its percent escapes decoded. For s3
// and gs the path excludes the bucket, for ocdbt and icechunk the version,
// and for memory:// it is the text after "//".
func (u SubURL) DecodedPath() string {
	return unescape(u.Path)
}

// Key returns the name that u's path gives inside the stage's own tree, in
// the form of [io/fs] names: percent-decoded, without its leading and
// trailing "/", and "." for an empty path. For s3 and gs the bucket is not
// part of the key (s3://b/x/y gives "x/y"); for s3+http and s3+https the
// first segment is the bucket (or the first key segment of a
// virtual-host-style endpoint); for memory: every spelling gives the same key
// (memory:a/b, memory:/a/b and memory://a/b give "a/b"); for file: it is
// the absolute path without its leading "/" (file:/d/x, file:///d/x and
// file://localhost/d/x give "d/x"); for ocdbt and icechunk it is the path
// after the version.
//
// Key does not clean the path: a path with empty, "." or ".." segments
// ("a//b", "a/./b") gives a key that [io/fs.ValidPath] rejects, so opening
// it fails with [io/fs.ErrInvalid] rather than silently naming another
// file. Only one leading and one trailing "/" are removed. An escaped
// slash ("%2F") decodes to "/" and separates names like a literal one, so
// "a%2Fb" and "a/b" have the same key.
func (u SubURL) Key() string {
	p := strings.TrimPrefix(u.Path, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return "."
	}
	return unescape(p)
}

// Join returns u with the [io/fs] name appended to its path, adding a "/"
// where needed and percent-encoding what a path cannot hold. name must be
// valid for [io/fs.ValidPath]; "." gives u itself. The query, if any, is
// kept. For a json: sub-URL the name's segments become pointer tokens
// ("~" is written ~0).
//
// Join is how the canonical URL of a file inside an FS is written: for a
// sub-URL that parses, and a name below a directory-like path, the result
// parses to itself.
//
//	s3://b + "x"       = s3://b/x
//	zip: + "x/y"       = zip:x/y
//	file:/d + "x"      = file:/d/x
//	memory:// + "x"    = memory://x
//	ocdbt://v3 + "k"   = ocdbt://v3/k
func (u SubURL) Join(name string) SubURL {
	if name == "." || name == "" {
		return u
	}
	info, _ := lookupScheme(u.Scheme)
	pointer, form := info.path == pathPointer, info.authority.form
	enc := escapeName(name, pointer)
	p := u.Path
	switch {
	case p == "":
		switch {
		case pointer:
			p = "/"
		case u.HasAuthority && form != authKey:
			p = "/"
		case form == authVersion && !u.HasAuthority && enc[0] == '@':
			// "@" would read as the legacy spelling of a version.
			enc = "%40" + enc[1:]
		}
	case !strings.HasSuffix(p, "/"):
		p += "/"
	}
	u.Path = p + enc
	return u
}

// escapeName percent-encodes an fs name for use in a path. In a JSON
// pointer, "~" is written ~0.
func escapeName(name string, pointer bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case pointer && c == '~':
			b.WriteString("~0")
		case isPathByte(c):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

// Host returns the decoded host of an http, https, s3+http, s3+https or
// file sub-URL, without the brackets of an IPv6 literal (a zone is given
// as "%zone"). It returns "" for other schemes and for file:/p and
// file:///p.
func (u SubURL) Host() string {
	if !u.hasHost() {
		return ""
	}
	host, _, _ := splitHostPort(u.Authority)
	if strings.HasPrefix(host, "[") {
		host = strings.TrimSuffix(host[1:], "]")
	}
	return unescape(host)
}

// Port returns the port of an http, https, s3+http, s3+https or file
// sub-URL, "" when it has none or an empty one.
func (u SubURL) Port() string {
	if !u.hasHost() {
		return ""
	}
	_, port, _ := splitHostPort(u.Authority)
	return port
}

func (u SubURL) hasHost() bool {
	info, _ := lookupScheme(u.Scheme)
	form := info.authority.form
	return u.HasAuthority && (form == authHost || form == authEndpoint)
}

// Bucket returns the bucket of an s3 or gs sub-URL, and the decoded first
// path segment of an s3+http or s3+https sub-URL (the bucket of a
// path-style endpoint). It returns "" for other schemes.
func (u SubURL) Bucket() string {
	info, _ := lookupScheme(u.Scheme)
	switch info.authority.form {
	case authBucket:
		return u.Authority
	case authEndpoint:
		p := strings.TrimPrefix(u.Path, "/")
		if i := strings.IndexByte(p, '/'); i >= 0 {
			p = p[:i]
		}
		return unescape(p)
	}
	return ""
}

// Version returns the decoded version of an ocdbt sub-URL (v<N> or a commit
// time) or the decoded ref of an icechunk sub-URL (branch.NAME, tag.NAME or
// a snapshot id). It returns "" when there is none (the latest version,
// or branch.main) and for other schemes.
func (u SubURL) Version() string {
	if info, _ := lookupScheme(u.Scheme); info.authority.form == authVersion {
		return unescape(u.Authority)
	}
	return ""
}

// WithVersion returns u naming version v of the store it opens, as the
// scheme's grammar writes a version in the authority: "ocdbt://v3/" for
// v3 of an OCDBT database, "icechunk://branch.main/" for a branch of an
// Icechunk repository. v is decoded text, such as a driver.Version's ID or
// a driver.Ref's Name; WithVersion percent-encodes what an authority
// cannot hold, and keeps ":" (an OCDBT commit time is written as it is).
// v == "" names the latest version: the authority is removed. u's path
// and query are kept.
//
// The error, a [*SyntaxError], says that v is not a version the scheme's
// grammar accepts (ocdbt://v0), or that the scheme names no version in
// its authority (zip:, a root). A vendor scheme's authority is its own:
// v is written there as it is encoded, for its driver to read. So
// WithVersion also tells whether a scheme takes versions, and whether a
// name is a version rather than a key: u.WithVersion(name) succeeds.
func (u SubURL) WithVersion(v string) (SubURL, error) {
	info, ok := lookupScheme(u.Scheme)
	if !ok || info.role != roleVendor && info.authority.form != authVersion {
		return u, &SyntaxError{Input: u.String(), Index: -1, Sub: u.String(), Msg: u.Scheme + " names no version in its authority"}
	}
	if v == "" {
		u.HasAuthority, u.Authority = false, ""
		return u, nil
	}
	u.HasAuthority, u.Authority = true, rfc3986.Escape(v, func(c byte) bool { return rfc3986.IsRegName(c) || c == ':' })
	if u.Path != "" && !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	if msg := checkSubURL(u); msg != "" {
		return u, &SyntaxError{Input: u.String(), Index: -1, Sub: u.String(), Msg: msg}
	}
	return u, nil
}

// Range returns the START and END of a byte-range sub-URL: the bytes from
// START included to END excluded. It returns 0, 0 for other schemes.
func (u SubURL) Range() (start, end uint64) {
	if info, _ := lookupScheme(u.Scheme); info.path != pathRange {
		return 0, 0
	}
	start, end, _ = parseRange(u.Path)
	return start, end
}

// Pointer returns the decoded reference tokens of a json: sub-URL's JSON
// pointer (RFC 6901), nil for the whole document. "/" gives one empty
// token. It returns nil for other schemes.
func (u SubURL) Pointer() []string {
	if info, _ := lookupScheme(u.Scheme); info.path != pathPointer || u.Path == "" {
		return nil
	}
	p := unescape(u.Path)
	if p == "" || p[0] != '/' {
		return nil
	}
	tokens := strings.Split(p[1:], "/")
	for i, t := range tokens {
		t = strings.ReplaceAll(t, "~1", "/")
		tokens[i] = strings.ReplaceAll(t, "~0", "~")
	}
	return tokens
}

// String returns the name of the kind, as used in error messages.
func (k Kind) String() string {
	switch k {
	case KindUnknown:
		return "unknown"
	case KindFile:
		return "file"
	case KindDirectory:
		return "directory"
	case KindDataset:
		return "dataset"
	case KindAny:
		return "file or directory"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// article returns the kind's name with an indefinite article.
func (k Kind) article() string {
	switch k {
	case KindFile:
		return "a file"
	case KindDirectory:
		return "a directory"
	case KindDataset:
		return "a dataset"
	case KindAny:
		return "a file or a directory"
	}
	return k.String()
}
