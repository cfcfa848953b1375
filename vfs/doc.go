// Package vfs is the core of pipefs: the URL pipeline grammar, the registry
// of schemes and formats, the engine that opens a pipeline stage by stage,
// and the portable FS and File types that callers hold.
//
// # Grammar
//
// [Parse] checks a pipeline such as
//
//	file:/d/a.zip|zip:inner/b.zip|zip:dir/f.txt
//
// against the syntax of every standard scheme (including those with no
// implementation yet) and returns its canonical form; [Pipeline.Resolve]
// resolves a relative pipeline or a "..:" against a base. Every error is a
// [*SyntaxError] that gives the index and the text of the offending sub-URL
// and matches [ErrSyntax] and fs.ErrInvalid. Where the spec is silent or
// contradicts itself, the decisions are documented on Parse, Resolve,
// [SubURL.Key] and [SubURL.Join]; one worth knowing here: gs buckets of 1 and
// 2 characters are accepted, because the spec's own example uses gs://b.
//
// # Drivers
//
// Roots and adapters are drivers: the contract they implement lives in
// package [github.com/pipefs/pipefs/vfs/driver] (a driver.Tree or a
// driver.Blob, and every optional interface), and they register here, in
// init, with [RegisterRoot], [RegisterAdapter] and [RegisterFormat], on
// [DefaultRegistry]. An [Adapter] sets OpenFile, to be given the blob of a
// file, or OpenDir, to be given the tree of a directory; the engine checks
// the kind of the input once, so a driver never sees the wrong one. Every
// Open also gets an [Env]: the canonical pipeline of its input, the limits
// in effect, the [Cache], and its own typed options ([SchemeOptions]).
// Registering a scheme twice panics; opening a well-formed scheme that
// nobody registered fails with an error matching [ErrUnknownScheme] that
// lists the registered ones and names the package to import. A [Registry]
// whose zero value is empty lets a program keep its own set
// (Options.Registry); a package layered on the drivers keeps its own
// registrations in it too ([Registry.Value]), as package array keeps its
// array formats, so that the program's Registry scopes them as well.
//
// Beyond its Open, a driver declares in its registration what the engine
// and programs decide about its scheme, so that nothing outside the
// driver names it: a Root whether it is Durable (indexes derived from its
// objects are kept on disk), Local, and whether opening FollowsLinks; an
// Adapter its Extensions, whether it is a Stream, and whether it
// FollowsLinks. [Registry.Root], [Registry.Adapter],
// [Registry.ByExtension] and [Registry.FollowsLinks] read them. A store's
// versions are declared by its tree (driver.Versioned,
// driver.RefLister), and [SubURL.WithVersion] writes one into a sub-URL
// by the scheme's grammar.
//
// A program pays only for the drivers it imports: package vfs itself
// registers none.
//
// A layer never closes what is below it. The engine closes a pipeline's
// trees and blobs, innermost first, when the [FS] or [File] that owns them
// is closed. Callers hold *FS and *File; [FS.As] and [File.As] reach a
// driver's own values (an archive's tree, a remote root's client).
//
// # State
//
// What outlives one open (fetched blocks, derived indexes, SDK clients)
// lives in a [Cache], bounded in bytes. Options.Cache chooses it; nil
// means the shared [DefaultCache]. Pipelines opened with different caches
// share nothing. Drivers keep no mutable state in package variables.
//
// Indexes derived from an object whose version outlives the process (a
// tar member table, gzip checkpoints) are also kept on disk, for later
// processes, when Options.Disk gives a store (Env.DiskIndex), and with
// Options.Sidecar shared through the object's own bucket as sidecar
// objects, for other machines ([SidecarMode]). What is loaded from either
// is untrusted input that the driver checks as it checks the object.
//
// The library has no ambient state: everything it does follows from the
// Options of the open. It reads no environment variable of its own, keeps
// nothing on disk unless Options.Disk says where (there is no default
// directory, and DefaultCache lives in memory only), and logs only
// through Options.Logger (nil: nothing), each warning once per Cache
// ([Env.Warn]); it does not depend on package testing, so it behaves the
// same in a test. The pipefs command is where environment variables
// ($PIPEFS_CACHE_DIR, $PIPEFS_LIMITS), the default directory of the
// store on disk and logging to stderr are decided. The cloud roots let
// their SDKs read the SDKs' own documented environment (AWS_*,
// GOOGLE_APPLICATION_CREDENTIALS, STORAGE_EMULATOR_HOST) when their
// options give no client or configuration.
//
// # Options
//
// [Options] carries the registry, the cache, the store on disk, the
// logger, the [Limits] and, per scheme, a driver's own options in
// Options.Schemes, keyed by the scheme the driver registered under
// ("http" serves https too; "s3" serves s3+http and s3+https). A key
// that names no registered scheme with options, or a value of another
// type than the driver declared, fails the open with an error matching
// fs.ErrInvalid.
//
// # FS and File
//
// One family opens a pipeline, named by what it returns, at the package
// level and relative to an opened FS:
//
//   - [Open] opens the location as written and returns a [*File], a file
//     or a directory; no format is detected.
//   - [OpenFS] opens a directory location, detecting the format of a
//     container file, and returns an [*FS].
//   - [OpenDetect] opens whichever of the two the location is, once.
//   - [FS.Open] (and [FS.OpenFile], its concrete result) opens a name
//     inside an FS; [FS.OpenFS] and [FS.OpenDetect] open what a name
//     holds, through adapters appended to it, as OpenFS and OpenDetect
//     do, without opening the FS's pipeline again.
//
// A parsed [Pipeline] opens by its String, which parses back to it.
//
// An [*FS] implements fs.FS, fs.StatFS, fs.ReadDirFS,
// fs.ReadFileFS, fs.SubFS and fs.ReadLinkFS (fs.ReadLink reads the target
// of a symbolic link of any tree, fs.Lstat describes a link without
// following it). A [*File]: a
// regular file implements io.Reader, io.ReaderAt, io.Seeker and io.WriterTo
// (so io.Copy streams it, through a [Streamer] blob when the driver has
// one), and ReadAt is safe for concurrent use; a directory implements
// fs.ReadDirFile. A link
// that is not followed, a device or a FIFO opens and describes itself but
// cannot be read. Stat().Sys() is an [*Origin]: the canonical pipeline of
// the file, and its raw header. FS.URL gives the canonical pipeline of any
// name. io/fs has no context, so an FS carries one for its I/O;
// [FS.WithContext] returns a copy with another.
//
// [FS.Stages] and [File.Stages] describe each sub-URL of what was opened:
// written or detected, the kind and size of what it yields, and what
// opening it took and cost.
//
// An FS is safe for concurrent use. Sub and WithContext share their
// parent's pipeline; Close releases it for all of them.
//
// # Errors
//
// Every method returns *fs.PathError values with the standard op names.
// Their cause is a [*StageError] naming the sub-URL that failed, and they
// match fs.ErrNotExist, fs.ErrPermission and fs.ErrInvalid whatever the
// backend said. Package sentinels cover the rest: [ErrUnknownScheme],
// [ErrUnknownFormat], [ErrModified], [ErrLimit], [ErrUnsafePath],
// [ErrCorrupt], [ErrIsDir], [ErrNotDir].
//
// A PathError's Path is the canonical pipeline; a StageError's message
// shows its sub-URL in the display form ([SubURL.Display]), with the
// escapes of spaces and non-ASCII characters decoded, as people type
// names ("zip:odd names" for "zip:odd%20names"), and its URL field holds
// the canonical text. Escapes that the grammar needs ("%7C" for "|",
// "%23", "%3F", "%25") stay escaped in both.
//
// # Format detection
//
// When a location is not of the kind wanted (OpenFS given a file), the
// registered format signatures are tried in registration order, reading
// only a prefix and a suffix of the file; exactly one match is appended as
// an adapter, and this repeats until the kind fits, so "file:/x.zip" opens
// as "file:/x.zip|zip:". Formats whose signature is at the start are tried
// first: exactly one of them matching wins without looking at the end of
// the file (nor decoding a stream to its end to find it). No match, or several, is an error matching
// [ErrUnknownFormat] that names the candidates. A directory that holds a
// store (OCDBT, Icechunk) opens as that store. [FS.Pipeline] reports the
// resolved pipeline. Options.NoDetect turns detection off.
//
// # Limits
//
// [Limits] bound what hostile input can claim: nesting depth, entries per
// archive, name length, decompressed size and compression ratio. They are
// on by default; hitting one is an error matching [ErrLimit] that names the
// field to raise. Every limit lives in Limits, including those of the
// dataset adapters (MaxDocument, MaxChunk).
package vfs
