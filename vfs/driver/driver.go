// Package driver defines the contract between the pipefs engine (package
// vfs) and the roots and adapters that plug into it, as database/sql/driver
// does for database/sql. Programs that only read pipelines never import it:
// they hold *vfs.FS and *vfs.File, and reach a driver value through their
// As methods.
//
// # Writing an adapter
//
// An adapter is one package. It registers itself in init on
// vfs.DefaultRegistry and implements one of two functions:
//
//	func init() {
//		vfs.RegisterAdapter(&vfs.Adapter{
//			Scheme:     "pipefs.toy",     // a standard scheme, or vendor "." name
//			OpenFile:   open,             // reads a file: gets a Blob
//			Summary:    "a toy",          // one line for "pipefs --help"
//			Extensions: []string{".toy"}, // names that suggest it ("a.toy|pipefs.toy:")
//		})
//	}
//
//	func open(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
//		arg := u.DecodedPath()        // what follows "pipefs.toy:", decoded
//		...                           // read in, within env.Limits
//		return driver.Location{Blob: out}, nil // or Tree and Path
//	}
//
// An adapter that reads a directory sets OpenDir instead and gets a [Tree]
// rooted at that directory. The engine checks the kind of the input once,
// so an adapter never sees the wrong kind. A program that imports the
// package can then open "…|pipefs.toy:…": adding an adapter touches its
// package and the import line of the program that wants it (in pipefs
// itself, pipefs.go for a local format, all/all.go for a remote root). A
// format signature (vfs.RegisterFormat) makes detection append it; a
// standard scheme's syntax is one row of the table in vfs/schemes.go.
//
// What else pipefs needs to know of a driver, the driver declares: nothing
// outside its package names its scheme. Its registration says, as data:
//
//   - vfs.Adapter.Extensions: the file name extensions that suggest it.
//   - vfs.Adapter.Stream: a decompressor, whose one file of output is
//     detected again and whose sub-URL takes no path.
//   - vfs.Root.FollowsLinks, vfs.Adapter.FollowsLinks: opening a path
//     follows the symbolic links of its trees (a local directory, tar).
//   - vfs.Root.Durable: its objects, and the versions its blobs name,
//     outlive the process; only then is what drivers derive from them
//     kept on disk (vfs.Env.DiskIndex, vfs.Env.DiskObject).
//     vfs.Root.Local: it reads the local disk, as fast as a copy there.
//   - vfs.Format.Dataset: a directory format that is a dataset, not a
//     store.
//
// What is known only once opened, its tree declares by the optional
// interfaces below: a store's versions ([Versioned]) and the names they go
// by ([RefLister]), whose sub-URL vfs.SubURL.WithVersion writes.
//
// An adapter that yields a tree names its entries; one that yields a file
// names it in the FileInfo of the blob it returns (File.Name reports it).
// A Blob's ReadAt takes a context; [ReaderAt] adapts it to io.ReaderAt for
// io.SectionReader and friends. Before trusting Stat().Size() of a
// decompressed input, check [SizeKnower]: its size may cost a full decode.
// An adapter's errors need no sub-URL or path: the engine wraps them in an
// *fs.PathError whose cause, a *vfs.StageError, names the sub-URL. What an
// adapter keeps in env.Cache across opens (an index of its input) is keyed
// by env.Key, which changes when the input's object is replaced.
// Package fstest holds the conformance kit (fstest.Run) every driver that
// yields a tree runs.
//
// # What a driver implements
//
// A [Blob] is a random-access byte object and a [Tree] a directory-like
// stage. Everything else is optional, declared here and discovered with a
// type assertion:
//
//   - io.Closer on a Tree or Blob: the engine closes it with the pipeline.
//   - [Streamer]: a blob that reads sequentially more cheaply than through
//     ReadAt (a decompressed stream).
//   - [SizeKnower]: a FileInfo whose Size is costly to learn.
//   - [Prefetcher]: a blob that can fetch a range ahead of reading it.
//   - [SuffixGrower]: a blob whose first request can read more of the end
//     of its object next time (a remote root).
//   - [Compressed]: a blob that is decompressed output, for ratio limits
//     across nested streams.
//   - [Counter]: a Tree or Blob that counts the requests and bytes its
//     reads cost.
//   - [Fingerprinter]: a Blob that names the version of its bytes (an
//     ETag, a generation, a file's inode and times), so that what is
//     derived from them is cached per version.
//   - [Revalidator]: a Fingerprinter that can ask where its bytes come
//     from whether they still have that version (a stat, one conditional
//     request), for a long-lived reader such as "pipefs serve".
//   - [Versioned]: a Tree that is a store with a history (OCDBT,
//     Icechunk), for "pipefs log"; [RefLister]: one whose versions also
//     go by names (Icechunk's branches and tags). The sub-URL of a
//     version is u.WithVersion(id) (vfs.SubURL.WithVersion), by the
//     syntax the scheme's grammar gives its authority.
//   - [Omitter]: a Tree that leaves out entries it cannot expose, and says
//     which.
//   - [LinkReader]: a Tree that has symbolic links and reads their
//     targets; [Lstater]: a Tree that describes an entry without following
//     a final link more cheaply than by listing its directory.
//   - As(any) bool: a Tree or Blob that gives a caller a value of its own
//     (an archive's header table, a remote root's SDK client) through
//     vfs.FS.As and vfs.File.As.
//
// A layer never closes the blob or tree it reads from: the engine owns
// them and closes every stage, innermost first, with the pipeline.
//
// # Errors
//
// Drivers return errors that match fs.ErrNotExist, fs.ErrPermission and
// fs.ErrInvalid where those apply, and the sentinels below for the rest.
// Only bytes that are wrong are [ErrCorrupt]; an I/O error from the layer
// below and a context error are returned as they are. Package vfs
// re-exports the sentinels for callers (vfs.ErrCorrupt is ErrCorrupt).
package driver

import (
	"context"
	"io"
	"io/fs"
	"time"
)

// A Blob is a random-access byte object: a file of a root, a member of an
// archive, a decompressed stream, a byte range.
//
// ReadAt follows the io.ReaderAt contract (it returns a non-nil error, io.EOF
// at the end, whenever n < len(p)) and must be safe for concurrent use. Stat
// reports the blob's name, size, mode and time; Stat().Size() is the number
// of bytes ReadAt serves.
type Blob interface {
	ReadAt(ctx context.Context, p []byte, off int64) (n int, err error)
	Stat() fs.FileInfo
}

// A Tree is a directory-like stage: a root directory, an archive, a
// versioned store. Names are fs.ValidPath names, "." is the tree's root.
// Methods must be safe for concurrent use; the engine wraps their errors in
// *fs.PathError values.
type Tree interface {
	// Stat describes the named file or directory.
	Stat(ctx context.Context, name string) (fs.FileInfo, error)
	// ReadDir lists the named directory, sorted by name.
	ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error)
	// OpenBlob opens the named regular file for random access. It returns
	// an error matching ErrIsDir when name is a directory.
	OpenBlob(ctx context.Context, name string) (Blob, error)
}

// A Location is what one stage of a pipeline yields: either a tree and a
// path inside it, or a byte object.
type Location struct {
	Tree Tree   // a tree, and Path inside it
	Path string // an fs.ValidPath name in Tree; "" means "."
	Blob Blob   // a byte object; set instead of Tree
}

// A Streamer is a Blob that can be read sequentially from an offset more
// cheaply than through ReadAt: a decompressed stream that learns its size
// and builds its index as it is read. vfs.File.WriteTo, and so io.Copy of
// a file, uses it. The reader returns io.EOF at the end of the blob.
type Streamer interface {
	Stream(ctx context.Context, off int64) (io.ReadCloser, error)
}

// A SizeKnower is an fs.FileInfo whose Size may be costly to learn: the
// size of a decompressed stream is known only once it has been decoded to
// its end. While SizeKnown reports false, vfs.File.Read does not ask for
// the size and relies on the blob's ReadAt returning io.EOF at the end.
type SizeKnower interface {
	SizeKnown() bool
}

// A Prefetcher is a Blob that can fetch a range ahead of reading it, so
// that a reader that knows what it will read next (an archive's directory,
// a member with its header) pays one request for it. Use [Prefetch] to
// reach one through sections.
type Prefetcher interface {
	Prefetch(ctx context.Context, off, n int64) error
}

// A SuffixGrower is a Blob whose root reads the end of an object in its
// first request (a remote root). An archive reader whose end structures
// needed n bytes from the end calls GrowSuffix(n), so that later opens of
// this object, and of others beside it, read that much at once. It is a
// hint; use [GrowSuffix] to reach one through sections.
type SuffixGrower interface {
	GrowSuffix(n int64)
}

// A Compressed blob is the output of a decompressor. CompressedSize
// returns the number of compressed bytes at the bottom of the nest it was
// decoded from, for the ratio limit of nested streams. Use
// [CompressedSize] to ask any blob.
type Compressed interface {
	CompressedSize() int64
}

// A ContextCloser is a Tree or Blob whose Close does I/O that may wait on
// a server, such as writing an index it derived as a sidecar
// (vfs.DiskIndex.Store). The engine closes it with CloseContext and the
// context of the vfs.FS or vfs.File being closed, whose cancellation stops
// that I/O; its Close does the same with a context that nothing cancels.
type ContextCloser interface {
	CloseContext(ctx context.Context) error
}

// A Counter is a Tree or Blob that counts what its reads cost, such as the
// tree of a remote root. vfs.FS.Stats reports every stage that is one.
type Counter interface {
	Stats() Counts
}

// A Fingerprinter is a Blob that names the version of the bytes it reads:
// a remote object's ETag or generation, a local file's device, inode,
// size and times, a sequence number of an in-memory write. Fingerprint
// returns a string that differs whenever the bytes may differ (two equal
// fingerprints of one name mean equal bytes), or "" when the blob cannot
// tell. The engine folds the fingerprints of every blob a stage was read
// from into vfs.Env.Key, which drivers key what they cache across opens
// by; a blob derived from another (an archive member, a decompressed
// stream) need not implement it, as its container's fingerprint covers it.
type Fingerprinter interface {
	Fingerprint() string
}

// A Revalidator is a Fingerprinter that can ask where its bytes come from
// whether the object it was opened from still has the version Fingerprint
// names: a local file's stat, one conditional request for a remote
// object. Revalidate returns nil when it does, an error matching
// ErrModified when the object changed (and fs.ErrNotExist as well when it
// is gone), and another error when the answer could not be had. It
// changes nothing: the blob goes on reading the version it was opened at
// (or failing with ErrModified); a caller that wants the new version opens
// the object again. The roots whose blobs name their version (file, http,
// s3, gs) implement it.
type Revalidator interface {
	Fingerprinter
	Revalidate(ctx context.Context) error
}

// A Sidecars blob is an object of a store that can keep small objects
// beside it, named as the blob's object with a suffix appended: the
// sidecar indexes that vfs.Options.Sidecar shares through the store. The
// blobs of the remote roots whose store can write objects (S3, GCS)
// implement it.
type Sidecars interface {
	// OpenSidecar opens the object whose name is the blob's name with
	// suffix appended, and returns its bytes and its size (-1 when
	// unknown); the caller closes the body. An object that does not
	// exist is an error matching fs.ErrNotExist.
	OpenSidecar(ctx context.Context, suffix string) (body io.ReadCloser, size int64, err error)
	// WriteSidecar writes data as the object whose name is the blob's
	// name with suffix appended, replacing any.
	WriteSidecar(ctx context.Context, suffix string, data []byte) error
}

// A Versioned tree is a store with a history, such as an OCDBT database or
// an Icechunk repository. Versions lists its versions, oldest first.
type Versioned interface {
	Versions(ctx context.Context) ([]Version, error)
}

// A Version is one version of a Versioned store.
type Version struct {
	ID      string    // what a sub-URL names the version by: "v3", a snapshot id
	Time    time.Time // when it was committed
	Keys    int64     // the number of keys, or -1 when the store does not say
	Message string    // the commit message, if the store keeps one
}

// A RefLister is a Versioned store whose versions also go by names that
// move as the store is written, such as an Icechunk repository's branches
// and tags. A program offers them where a version is typed (shell
// completion of "icechunk://"), as they are what people name a version
// by; a store without refs offers its versions' IDs.
type RefLister interface {
	Versioned
	// ListRefs lists the refs in the order to show them.
	ListRefs(ctx context.Context) ([]Ref, error)
}

// A Ref is one name of a version of a RefLister store.
type Ref struct {
	Name    string // what a sub-URL names the version by: "branch.main", "tag.v1"
	Version string // the ID of the version it names now (a Version's ID)
}

// An Omitter is a Tree that leaves out entries it cannot expose, such as a
// member whose name is not a valid io/fs name (a NUL, an absolute path, a
// ".." element). Omitted lists them, so that a caller reports them instead
// of losing them silently.
type Omitter interface {
	Omitted(ctx context.Context) ([]Omission, error)
}

// An Omission is one entry an Omitter left out.
type Omission struct {
	Name   string // the name as the container stores it
	Offset int64  // where its entry starts in the container; -1 if unknown
	Reason string // why it is left out, for people
	// Err is, for an omission caused by damage (the listing ended early
	// at bytes that are not what the format says, or at a damaged or
	// truncated stream below), the error that caused it, matching
	// ErrCorrupt: the listing is incomplete or its data cannot be
	// verified, and a tool reports failure. It is nil for an entry left
	// out only because its name cannot be used.
	Err error
}

// A LinkReader is a Tree that holds symbolic links and reads their targets,
// for vfs.FS.ReadLink and so fs.ReadLink.
//
// ReadLink returns the target of the symbolic link name, the entry itself
// (a link in a parent directory is followed, a final one is not), as the
// container stores it: not cleaned, not resolved, possibly absolute or
// dangling. Name is an fs.ValidPath name. When name exists but is no
// symbolic link, the error matches [ErrNotLink] and so fs.ErrInvalid, as
// os.Readlink fails with EINVAL; when it does not exist, fs.ErrNotExist. A
// target is a path: a driver reads at most [MaxLinkTarget] bytes of it,
// and a longer one is an error matching [ErrCorrupt].
type LinkReader interface {
	ReadLink(ctx context.Context, name string) (string, error)
}

// An Lstater is a Tree that describes an entry without following it when
// it is a symbolic link, for vfs.FS.Lstat, more cheaply than by listing
// its parent directory (what the engine does for a Tree that is none).
// Lstat of a name that is no link describes it as Stat does; a link in a
// parent directory is followed. A Tree whose Stat never follows a final
// link (a zip archive) implements it with Stat.
type Lstater interface {
	Lstat(ctx context.Context, name string) (fs.FileInfo, error)
}

// MaxLinkTarget is the longest target of a symbolic link that a
// [LinkReader] returns, in bytes: Linux's PATH_MAX.
const MaxLinkTarget = 4096

// ErrNotLink is what a [LinkReader] returns, wrapped or not, for a name
// that is not a symbolic link. It matches fs.ErrInvalid.
var ErrNotLink error = notLinkError{}

type notLinkError struct{}

func (notLinkError) Error() string        { return "not a symbolic link" }
func (notLinkError) Is(target error) bool { return target == fs.ErrInvalid }
