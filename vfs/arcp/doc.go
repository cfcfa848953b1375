// Package arcp implements arcp URIs, the identifiers of the Archive and
// Package URI scheme (draft-soilandreyes-arcp-03), for the containers that
// pipefs opens: zip and tar archives, OCDBT and Icechunk stores, and
// folders.
//
//	arcp://uuid,2a47c495-ac70-4ed1-850b-8800a57618cf/css/base.css
//	arcp://ni,sha-256;JCS7yveugE3UaZiHCs1XpRVfSHaewxAKka0o5q2osg8/css/base.css
//	arcp://name,site.zip/css/base.css
//
// The authority identifies the archive, the path a resource inside it.
//
// # URIs
//
// [Parse] checks an arcp URI against the draft's grammar and keeps its
// text as written, so [URI.String] gives it back; [New] builds the URI of
// an io/fs name, percent-encoding each segment as RFC 3986 requires.
// [URI.Resolve] resolves a reference as RFC 3986 section 5 says; dot
// segments never climb above the archive's root ("../../x" against any
// base names /x of the same archive). [URI.Name] turns a path into an
// io/fs name. Malformed text gives a [*SyntaxError], matching [ErrSyntax]
// and fs.ErrInvalid.
//
// # Identifiers
//
// [Identify] computes the three authorities of a container (an
// [Identity]):
//
//   - uuid: the UUID v5 ([NewSHA1], RFC 9562) in the URL namespace of the
//     canonical pipeline of the container. For a member of
//     "file:/d/a.zip|zip:" that is "file:/d/a.zip"; for a member of a zip
//     inside it, "file:/d/a.zip|zip:inner.zip" ([Split] finds it).
//   - ni: "sha-256;" and the base64url SHA-256, without padding, of the
//     container's bytes (RFC 6920), which are read to their end. These are
//     the bytes the archive adapter reads: the container of
//     "file:/d/a.tgz|gzip:|pipefs.tar:x" is "file:/d/a.tgz|gzip:", the
//     tar stream, so a tar and its gzipped copy share their ni authority.
//     A store or a folder has no single byte stream, and no ni authority.
//   - name: the base name of the container's file ("name,a.zip"),
//     percent-encoded where a reg-name cannot hold it.
//
// # Resolution
//
// A [Resolver] holds the containers a process has opened and resolves
// arcp URIs against them, as the draft's section 4.3 asks: an unknown
// authority fails with an error matching fs.ErrNotExist, a container
// that was registered and removed with one matching [ErrGone], a missing
// path with fs.ErrNotExist. [Resolver.FS] is an io/fs view of them all.
// A Resolver is safe for concurrent use. It closes only the containers it
// opened itself ([Resolver.AddPipeline]), when they are removed; files
// opened from a container must not be used after it is removed.
//
// # Comparison
//
// Authorities are compared by [AuthorityKey]: prefixes, UUIDs and names
// without regard to case (a reg-name is case-insensitive), ni values
// exactly (base64url is not).
package arcp
