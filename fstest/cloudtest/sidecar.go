package cloudtest

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter" // the sidecar scenario reads a tar.gz
	_ "github.com/pipefs/pipefs/adapters/taradapter"
)

// A SidecarStore is an object store, as the sidecar scenario of
// CheckSidecars reads and writes it.
type SidecarStore struct {
	// URL is the pipeline of the object Put writes ("s3+http://host/bucket/data/src.tar.gz").
	URL string
	// Options returns the options of a new process: a vfs.Cache of its
	// own, the index store on disk d (nil for none), and sidecar mode m.
	Options func(d *disk.Store, m vfs.SidecarMode) *vfs.Options
	// Put writes data as object name ("data/src.tar.gz"), relative to
	// the object's bucket.
	Put func(name string, data []byte)
	// Get reads object name whole.
	Get func(name string) []byte
	// List returns the names of the objects whose names start with
	// prefix, relative to the bucket.
	List func(prefix string) []string
	// Requests returns the requests the server saw since the last call
	// (not those of Put, Get and List), one string each: a read holds the
	// object's name, a write starts with PUT or POST.
	Requests func() []string
	// Object is the name of the object URL names, relative to its bucket
	// ("data/src.tar.gz").
	Object string
}

// sidecarFiles are the members of the tar.gz the scenario reads: over a
// megabyte of incompressible bytes (so that listing it cold reads more
// than the first read does) and some text members.
func sidecarFiles(seed uint64) map[string][]byte {
	files := map[string][]byte{"big/random.bin": fstest.RandomBytes(3<<19, seed)}
	for i := range 40 {
		files[fmt.Sprintf("text/%02d.txt", i)] = []byte(strings.Repeat(fmt.Sprintf("member %d of version %d\n", i, seed), 200+i))
	}
	return files
}

// CheckSidecars runs the sidecar scenario against st: one process derives
// the indexes of a remote tar.gz (the gzip head and checkpoints, the tar
// table) and writes them as sidecars; another process on another machine
// (an empty disk) lists the archive with the open and two sidecars (the
// gzip head and the tar table) and decodes nothing, then reads a member
// with the checkpoints' sidecar; a third finds them all on its disk and
// sends only the open. A damaged sidecar is a miss; a replaced object gets
// sidecars of its own; SidecarRead writes nothing.
func CheckSidecars(t *testing.T, st SidecarStore) {
	ctx := context.Background()
	files := sidecarFiles(1)
	tgz := fstest.TarGzBytes(files)
	st.Put(st.Object, tgz)
	pipeline := st.URL + "|gzip:|pipefs.tar:"
	prefix := st.Object + vfs.SidecarSuffix
	newDisk := func() *disk.Store {
		d, err := disk.Open(t.TempDir(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// run lists the archive and reads one member, as a process would,
	// and returns the requests the server saw.
	run := func(name string, o *vfs.Options, want map[string][]byte) []string {
		t.Helper()
		st.Requests()
		fsys, err := vfs.OpenFS(ctx, pipeline, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				got = append(got, p)
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w := slices.Sorted(maps.Keys(want)); !slices.Equal(got, w) {
			t.Fatalf("%s: listed %d files %q..., want %d", name, len(got), got[:min(3, len(got))], len(w))
		}
		if b, err := fs.ReadFile(fsys, "text/07.txt"); err != nil || string(b) != string(want["text/07.txt"]) {
			t.Fatalf("%s: text/07.txt: %d bytes, %v", name, len(b), err)
		}
		fsys.Close()
		return st.Requests()
	}
	// reads counts the reads of sidecars (sidecar) or of the archive;
	// writes counts the writes, which are all of sidecars: the scenario
	// writes its own objects to the server directly.
	isWrite := func(r string) bool { return strings.HasPrefix(r, "PUT ") || strings.HasPrefix(r, "POST ") }
	reads := func(reqs []string, sidecar bool) int {
		n := 0
		for _, r := range reqs {
			if !isWrite(r) && strings.Contains(r, ".pipefs") == sidecar {
				n++
			}
		}
		return n
	}
	writes := func(reqs []string) int {
		n := 0
		for _, r := range reqs {
			if isWrite(r) {
				n++
			}
		}
		return n
	}

	// The first process derives the indexes (gzip head and checkpoints,
	// tar member table) and writes each as a sidecar.
	first := run("writer", st.Options(newDisk(), vfs.SidecarWrite), files)
	if n := writes(first); n != 3 {
		t.Fatalf("the writer wrote %d sidecars, want 3 (gzip head and checkpoints, tar table):\n%s", n, strings.Join(first, "\n"))
	}
	sides := st.List(prefix)
	if len(sides) != 3 {
		t.Fatalf("objects %s*: %q, want 3", prefix, sides)
	}

	// Another machine, its disk empty: the open and the sidecars of the
	// gzip head and the tar table list the archive.
	d2 := newDisk()
	listOnly := func(o *vfs.Options) []string {
		st.Requests()
		fsys, err := vfs.OpenFS(ctx, pipeline, o)
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		if _, err := fs.ReadDir(fsys, "text"); err != nil {
			t.Fatal(err)
		}
		return st.Requests()
	}
	second := listOnly(st.Options(d2, vfs.SidecarRead))
	if len(second) != 3 || reads(second, true) != 2 {
		t.Errorf("listing on another machine: %d requests, want 3 (the open, the gzip head and the tar table):\n%s", len(second), strings.Join(second, "\n"))
	}
	if d2.Stats().Puts != 2 {
		t.Errorf("the machine kept %d sidecars on its disk, want 2 (gzip head, tar table)", d2.Stats().Puts)
	}
	// A later process on that machine: the open alone.
	if third := listOnly(st.Options(d2, vfs.SidecarRead)); len(third) != 1 || reads(third, true) != 0 {
		t.Errorf("listing with the sidecars on disk: %d requests, want 1:\n%s", len(third), strings.Join(third, "\n"))
	}
	// Reading a member needs the checkpoints: their sidecar, once.
	if reqs := run("reader on another machine", st.Options(d2, vfs.SidecarRead), files); reads(reqs, true) != 1 || writes(reqs) != 0 {
		t.Errorf("reading a member on another machine: want one sidecar read (the checkpoints):\n%s", strings.Join(reqs, "\n"))
	}
	// And then the machine has them all on its disk.
	withDisk := run("reader with disk", st.Options(d2, vfs.SidecarRead), files)
	if reads(withDisk, true) != 0 || writes(withDisk) != 0 {
		t.Errorf("reader with the sidecars on disk:\n%s", strings.Join(withDisk, "\n"))
	}

	// A damaged sidecar is a miss: the reader derives the index itself,
	// lists what the archive holds, and in SidecarRead writes nothing.
	// (A damaged head leaves no checkpoints to look for.)
	for _, name := range sides {
		b := st.Get(name)
		b[len(b)/2] ^= 0x40
		st.Put(name, b)
	}
	reqs := run("damaged sidecars", st.Options(newDisk(), vfs.SidecarRead), files)
	if reads(reqs, true) != 2 || writes(reqs) != 0 || reads(reqs, false) < 3 {
		t.Errorf("with damaged sidecars: want two sidecar reads, no write, and the archive read:\n%s", strings.Join(reqs, "\n"))
	}

	// A replaced object has a new version, so new sidecars: the old ones
	// are never read for it.
	files2 := sidecarFiles(2)
	st.Put(st.Object, fstest.TarGzBytes(files2))
	reqs = run("replaced", st.Options(newDisk(), vfs.SidecarWrite), files2)
	if writes(reqs) != 3 {
		t.Errorf("the object replaced: %d sidecars written, want 3:\n%s", writes(reqs), strings.Join(reqs, "\n"))
	}
	if got := st.List(prefix); len(got) != 6 {
		t.Errorf("objects %s*: %q, want the 3 of each version", prefix, got)
	}
	// Off, the default: no sidecar is read or written.
	if reqs := run("off", st.Options(nil, vfs.SidecarOff), files2); reads(reqs, true)+writes(reqs) != 0 {
		t.Errorf("sidecars off:\n%s", strings.Join(reqs, "\n"))
	}
	// A reader with no disk at all reads the sidecars, then the archive
	// as a reader with the indexes on its disk does.
	reqs = run("reader without a disk", st.Options(nil, vfs.SidecarRead), files2)
	if reads(reqs, true) != 3 || reads(reqs, false) != reads(withDisk, false) {
		t.Errorf("reader without a disk: want three sidecar reads, then the %d reads of a reader with the indexes on disk:\n%s",
			reads(withDisk, false), strings.Join(reqs, "\n"))
	}
}
