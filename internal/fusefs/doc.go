// Package fusefs serves the directory location of a pipeline, a *vfs.FS,
// as a read-only FUSE file system, through go-fuse's node API
// (github.com/hanwen/go-fuse/v2/fs). [Mount] mounts it on a directory and
// returns a [Server] that [Server.Unmount] takes down.
//
// # The tree
//
// A directory is listed once, with FS.ReadDir, the first time the kernel
// looks a name up in it or reads it; its entries then live as long as the
// mount, so the kernel may cache entries, attributes and pages for as
// long as it likes (the tree does not change under a mount). An entry is
// described as ReadDir's fs.DirEntry.Info describes it, as lstat would:
// a symbolic link is a link, whatever it points at. Inode numbers are
// stable: a hash of the name, probed past the rare collision, so that the
// same name of the same tree has the same number in every mount unless
// it collides. Files and directories belong to the mounting user (see
// [Options]); their permission bits and modification times are those of
// the archive.
//
// A listing runs in the background, with the FS's context: a process that
// is interrupted while it waits gets EINTR, and the listing goes on for
// the next caller. A listing that fails is tried again by the next
// lookup.
//
// # Files
//
// Each FUSE open of a regular file opens its own *vfs.File, and reads are
// ReadAt calls on it, so that readers of one file, or of many, run in
// parallel; sizes and offsets are 64-bit. Opened files keep the kernel's
// page cache (FOPEN_KEEP_CACHE).
//
// The target of a symbolic link is what vfs.FS.ReadLink reads (a tar
// member's link name, the bytes of a zip member, an HDF5 link's path); a
// link whose tree cannot read it fails with EOPNOTSUPP, and one whose
// target is too long with EIO. The
// kernel resolves links as on any file system: a link whose target is
// absolute, or climbs out of the mount, points outside it, as it would
// once the archive were extracted.
//
// # Read-only
//
// The file system is mounted "ro", and every operation that would change
// it (create, write, truncate, mkdir, unlink, rename, link, setattr,
// setxattr) fails with EROFS even when the kernel asks.
//
// # Errors
//
// A failure of the FS is returned to the kernel as the errno that [Errno]
// maps it to: fs.ErrNotExist is ENOENT, fs.ErrPermission EACCES,
// vfs.ErrCorrupt and anything unknown EIO, a cancelled context EINTR.
// Each failing operation on a name is reported once to Options.Log, with
// the canonical pipeline of the name; cancellations are not reported.
package fusefs
