// Package deep walks a pipefs tree and the containers inside it: a zip in
// a zip, a tar.gz, an HDF5 file, a compressed plain file (a folder of one
// file, see vfs.OpenFS) are walked as the directories they hold, as
// pipefs ls --deep and tree --deep list them.
//
//	err := deep.WalkDir(fsys, ".", nil, func(p string, e *deep.Entry, err error) error {
//		if err != nil {
//			return err
//		}
//		if e.IsContainer() {
//			fmt.Println(p+"/", "["+e.Format+"]") // "inner.zip/  [zip]"
//		}
//		return nil
//	})
//
// # Walks
//
// [WalkDir] has the shape of fs.WalkDir: one callback, from one
// goroutine, for the root and then every entry in lexical order, with
// fs.SkipDir and fs.SkipAll as there. Its [WalkDirFunc] gets an [*Entry]:
// an fs.DirEntry that also tells the *vfs.FS it is listed from, its name
// there, how many containers deep it is, and, for a container file, the
// nested *vfs.FS (Nested) and the formats that opened it (Format).
//
// A caller that draws one directory at a time (a tree with its branches)
// uses a [Walker] directly: [Walker.Dir] gives the entries of a directory
// already listed, in order, with the containers among them opened ahead.
//
// # Containers
//
// Only a regular, non-empty file whose first bytes look like a container
// (vfs.Registry.SniffHead) is opened, through the formats detection
// appends ("gzip|tar" for a tar.gz), so a plain file costs the read of its
// head and nothing more; that head is read unverified, as format
// detection reads it, and what is then opened is verified as any read.
// A container is opened relative to the FS it is in ((*vfs.FS).OpenFS):
// nothing above it is opened again, and a container stored in a remote
// archive is read as ranges of the outer object, so it costs no request
// beyond the bytes it needs. The files of an HDF5 file, and those below
// the arrays and groups of Zarr, N5 and precomputed datasets, are
// datasets and chunks: they are never read. Options.Depth bounds how many
// containers deep a walk opens (DefaultDepth, 8).
//
// # Concurrency
//
// The containers of a directory are opened by goroutines, up to
// Options.Concurrency (DefaultConcurrency, 16) at once and that many
// entries ahead of the entry the walk is at, so a directory of many
// nested containers waits for their requests together. The callback still
// sees the entries in order, one at a time. The bound holds across the
// whole walk, however deep.
//
// # Closing
//
// The walk owns the nested FSes it opens. One is valid while the callback
// runs for its container and for the entries inside it, and is closed
// once they are walked (after Options.BeforeClose), or at once when the
// walk ends before reaching it. The callback must not keep it.
//
// # Errors
//
// I/O runs under the walked FS's context ((*vfs.FS).WithContext); when it
// is done, the walk returns its error. An entry whose FileInfo fails, a
// directory that cannot be read and a container that does not open are
// given to the callback with their error, which matches its cause with
// errors.Is (vfs.ErrCorrupt, fs.ErrNotExist, ...); a container that does
// not open is then walked as a file. Damage an archive reports about
// itself, the entries it left out of its listing (driver.Omitter), is
// not an error of the walk: ask each nested FS in Options.BeforeClose,
// and the walked FS after WalkDir, as pipefs ls does.
package deep
