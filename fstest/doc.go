// Package fstest is the conformance kit of pipefs: the checks that every
// root and adapter passes, and helpers that build test fixtures.
//
// It is not the standard library's testing/fstest, which it runs first and
// then goes beyond; import that one under another name when both are
// needed.
//
// # Checking a driver
//
// A driver's test writes a known tree, names the pipeline that opens it,
// and calls [Run] with the files the tree must hold:
//
//	func TestConformance(t *testing.T) {
//		files := map[string][]byte{"a.txt": []byte("hello"), "d/b.txt": []byte("world")}
//		fstest.Run(t, fstest.Case{Pipeline: "memory:/" + fstest.MapFiles(t, files) + "/", Files: files, Exhaustive: true})
//	}
//
// An adapter stacks itself on a fixture in the memory root:
//
//	zipped := fstest.MapFiles(t, map[string][]byte{"a.zip": fstest.ZipBytes(files, zip.Deflate)})
//	fstest.Run(t, fstest.Case{Pipeline: "memory:/" + zipped + "/a.zip|zip:", Files: files})
//
// The test must import the packages that register the pipeline's schemes
// (package github.com/pipefs/pipefs/all registers them all), or pass a registry in
// [Case.Options].
//
// # Checks
//
// Run opens the pipeline with vfs.OpenFS and runs each group of checks as
// a subtest named as below; [Case.Skip] takes the same names.
//
//   - testfs: testing/fstest.TestFS with every expected name.
//   - contents: every expected file reads back its bytes through ReadFile,
//     fs.ReadFile and Open+Read; Stat gives its size, name and kind; every
//     expected directory lists its expected children, with entries whose
//     Info agrees (but for the size of a symbolic link's entry, which
//     describes the link, as fs.DirEntry says); with [Case.Exhaustive], the
//     tree holds nothing else.
//   - readat: io.ReaderAt on one shared *vfs.File: edge cases (zero
//     length, across the end, at and past the end, negative offset), then
//     goroutines reading at random offsets (from a fixed seed) while
//     another reads the file with Read. A short read must return exactly
//     io.EOF, a full read before the end nil.
//   - seek: io.Seeker: every whence, negative results rejected with the
//     offset unchanged, Read after Seek, Seek past the end then Read gives
//     io.EOF, ReadAt leaves the offset alone.
//   - errors (in parts: missing, under-file, invalid, dir-as-file,
//     file-as-dir, which Case.Skip can name as "errors/missing" and so on):
//     a missing name, or a name below a regular file, fails Open, Stat,
//     ReadDir, ReadFile and Sub with a *fs.PathError (Op "open", "stat",
//     "readdir", "readfile", "sub"; Path the name) matching
//     fs.ErrNotExist, whose cause is a *vfs.StageError naming the
//     innermost sub-URL; invalid names ("", "/x", "../x", "a//b", ...)
//     match fs.ErrInvalid; a directory read as a file matches
//     vfs.ErrIsDir, a file listed or Sub'ed as a directory vfs.ErrNotDir.
//   - url: for every name, URL(name) is canonical (vfs.Parse returns it
//     unchanged), Stat and ReadDir entries carry it in a *vfs.Origin, and
//     opening it on its own with vfs.Open or vfs.OpenFS gives the
//     same bytes or the same listing.
//   - context: WithContext of a cancelled or expired context fails every
//     method with the context's error and leaves the original alone; a
//     file or directory whose context is cancelled after opening fails to
//     read; opening the pipeline with a cancelled context fails.
//   - sub: Sub of each directory passes testing/fstest.TestFS with the
//     expected names below it, reads the same bytes, has URL(".") equal
//     to the parent's URL(dir), and reports errors in its own names.
//   - close: a closed file fails Read, ReadAt, Seek, Stat and Close with
//     fs.ErrClosed; a closed directory fails ReadDir; an FS closes once.
//
// Failure messages have the form "ReadAt(17, 4) = \"abc\", EOF; want
// \"abcd\"". Checks that open a pipeline or a file per name sample a big
// tree rather than visiting every name.
//
// # Checking a file location
//
// An adapter that yields a file (gzip:, byte-range:, json:, ...) is
// checked by [RunFile], on the bytes the file must hold; it runs the same
// Read, ReadAt, Seek, context and Close checks on that one file. Such an
// adapter is also checked by Run on a pipeline that ends in a container
// after it, such as "a.tar.xz|pipefs.xz:|pipefs.tar:".
//
// # Fixtures
//
// [MapFiles] writes files into the memory root under a prefix of their own
// and removes them when the test ends. [ZipBytes] and [ZipBytesFunc] build
// zip archives with archive/zip. [TreeFS] views a driver.Tree that a test
// holds directly as an fs.FS. [ToyRegistry] is a registry of toy roots,
// adapters and versioned stores, for a test of what a program reads from
// the registry rather than from pipefs's own drivers.
//
// [Fixture] finds a file of the shared fixtures (../shared/fixtures beside
// the repository) and [NeedTool] a program such as bsdtar. When either is
// missing the test skips, except in CI (the environment variable CI is set,
// see [InCI]), where it fails: CI provides everything, so a missing
// fixture or tool there is a broken setup, not a reason to pass.
// [Unavailable] does the same for anything else a test needs.
//
// # Waiting
//
// [WaitUntil] polls a condition and [WaitChan] waits for a channel, and
// [WaitContext] gives a context for a wait: a test waits on what it
// expects, never for a fixed time, and gives up a little before its
// deadline ([WaitDeadline]) with a message that says what it waited for.
package fstest
