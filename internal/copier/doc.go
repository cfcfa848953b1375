// Package copier copies file and directory locations (a *vfs.File, a
// *vfs.FS) to local files and directories, verified and resumable: what
// pipefs cp does.
//
// # Use
//
// A [Copier] holds the options of a copy. [FileSource] and
// [Copier.TreeSource] make a [Source] of an opened location (a tree is
// listed once, up front, so that [Source.Size] gives the total to show);
// [Copier.Copy] writes it below a local directory and [Copier.CopyTo]
// writes a file to an io.Writer. The caller opens the locations, and
// closes the sources.
//
// # What is written
//
// Everything is written through an os.Root of the destination directory:
// nothing lands outside it. A tree's regular files, directories and
// symbolic links are copied, with the permission bits of files and
// directories (less the umask; a directory's owner keeps rwx) and their
// modification times. A name unsafe on the local filesystem (absolute,
// with "..", a NUL, or an element longer than 255 bytes), a symbolic link
// whose target is absolute or climbs out of the tree, a device, a FIFO
// and a socket are refused, with an error matching [ErrRefused]; the
// entries an archive left out (driver.Omitter) are reported too.
//
// Each file is written to NAME[PartialSuffix] and renamed to NAME once
// its size matches the source's and, for a zip member whose header
// records one, its CRC-32 does; a copy that does not match is removed,
// with an error matching [ErrMismatch]. The checksums the source's formats
// carry are checked by the formats on the way. Without Resume, a file
// whose copy fails leaves nothing behind.
//
// # Trees
//
// Directories are made first, parents first, and their permission bits
// and times set last, deepest first. Regular files are copied
// Copier.Concurrency at a time, started in the order of the tree; the
// Verbose lines and the failures passed to Report come in that order,
// whatever the order the copies end in. A failed entry is reported and
// the others copied; Copy then returns [ErrReported]. Directories are
// listed Concurrency at a time too, with one ReadDir each.
//
// # Resuming
//
// With Copier.Resume, a file that is complete (the source's size, and
// CRC-32 when known) is skipped; a partial copy of the same source
// (NAME[PartialSuffix], with the record of its source in
// NAME[SourceSuffix]: pipeline, size, modification time, version,
// CRC-32), or a NAME shorter than the source, is continued from its
// length; anything else is copied again from the start. A copy that fails
// keeps what it copied.
//
// A tree copied with Resume is resumed where it was started, so that the
// same command run again continues it. Its record, COPY[SourceSuffix]
// beside the copy COPY (the destination itself, or DEST/NAME inside an
// existing directory DEST), names the tree's pipeline while the copy
// runs (when the directory it goes in can be written); it is removed once
// the tree is copied without a failure. Copied into an existing directory
// DEST (Copy's into), the copy goes to:
//
//  1. DEST/NAME, when DEST/NAME[SourceSuffix] records the tree;
//  2. DEST itself, when DEST[SourceSuffix] records the tree;
//  3. DEST/NAME, when it is a directory whose entries match the tree's
//     top level;
//  4. DEST itself, when its entries match the tree's top level;
//  5. DEST/NAME otherwise, as cp -R does.
//
// A directory's entries match the tree's top level when there is at least
// one, and each is named as an entry at the tree's top, of the same type
// (directory, regular file, symbolic link), or is a partial copy or record
// of a regular file there. Run twice, with the first run complete or
// interrupted, cp -R --continue SRC DEST then continues the copy it
// started, never DEST/NAME/NAME.
//
// # Concurrency
//
// A Copier runs one copy at a time; its fields must not change while one
// runs. Report and Verbose are called from the copy's goroutines one call
// at a time; Progress is written to by several files' copies at once.
package copier
