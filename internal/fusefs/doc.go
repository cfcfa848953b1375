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
// The target of a symbolic link comes from fs.ReadLinkFS when the FS
// implements it, else from the entry's header: a *tar.Header's Linkname
// (following a hard link to a symbolic link), or the bytes of a zip
// member whose mode says it is a link, read through the archive/zip
// reader that vfs.FS.As reaches. Other links fail to read with EIO. The
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
