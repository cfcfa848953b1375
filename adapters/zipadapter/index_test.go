package zipadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// sameAsArchiveZip checks that Open read the records of the archive in b
// as archive/zip reads them: the same number, and for each the same
// *zip.FileHeader from Sys. Then every name of the tree is described as
// the package documentation says from that header.
func sameAsArchiveZip(t *testing.T, b []byte, a *Archive) {
	t.Helper()
	r, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		t.Fatalf("Open read the archive, zip.NewReader = %v", err)
	}
	if len(r.File) != len(a.recs) {
		t.Fatalf("Open read %d records, archive/zip %d", len(a.recs), len(r.File))
	}
	for i, f := range r.File {
		h := a.header(int32(i))
		got, want := h.fileHeader(), f.FileHeader
		sameHeader(t, got, &want)
	}
	ctx := context.Background()
	for i := range a.ents {
		e := &a.ents[i]
		if e.sub >= 0 {
			continue // directories: see TestFixtures
		}
		f := r.File[e.rec]
		fi := &fileInfo{a, e}
		m := f.Mode()
		perm := m.Perm()
		if perm == 0 {
			perm = 0o444
		}
		if mode := perm | m&fs.ModeSymlink; fi.Mode() != mode || fi.Type() != mode.Type() {
			t.Errorf("%q: Mode() = %v, Type() = %v, want %v", f.Name, fi.Mode(), fi.Type(), mode)
		}
		if size := int64(min(f.UncompressedSize64, 1<<63-1)); fi.Size() != size {
			t.Errorf("%q: Size() = %d, want %d", f.Name, fi.Size(), size)
		}
		if !fi.ModTime().Equal(f.Modified) {
			t.Errorf("%q: ModTime() = %v, want %v", f.Name, fi.ModTime(), f.Modified)
		}
		if _, err := a.Stat(ctx, "."); err != nil {
			t.Error(err)
		}
	}
}

// sameHeader checks that got is want, times compared as instants with
// their zone offsets, and whether the zone is time.UTC (archive/zip's way
// of saying that there was no MS-DOS time).
func sameHeader(t *testing.T, got, want *zip.FileHeader) {
	t.Helper()
	gm, wm := got.Modified, want.Modified
	gName, gOff := gm.Zone()
	wName, wOff := wm.Zone()
	if !gm.Equal(wm) || gName != wName || gOff != wOff || (gm.Location() == time.UTC) != (wm.Location() == time.UTC) {
		t.Errorf("%q: Modified = %v (%v), archive/zip says %v (%v)", want.Name, gm, gm.Location(), wm, wm.Location())
	}
	if !bytes.Equal(got.Extra, want.Extra) {
		t.Errorf("%q: Extra = %x, archive/zip says %x", want.Name, got.Extra, want.Extra)
	}
	g, w := *got, *want
	g.Modified, w.Modified = time.Time{}, time.Time{}
	g.Extra, w.Extra = nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Errorf("header = %+v, archive/zip says %+v", g, w)
	}
}

// extra encodes extra fields, given as tag and body.
func extra(fields ...any) []byte {
	var b []byte
	for i := 0; i < len(fields); i += 2 {
		body := fields[i+1].([]byte)
		b = binary.LittleEndian.AppendUint16(b, uint16(fields[i].(int)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(body)))
		b = append(b, body...)
	}
	return b
}

func le32b(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// ntfsTime is an NTFS extra field body with one time attribute.
func ntfsTime(ticks uint64, attrSize int) []byte {
	b := le32b(0) // reserved
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, uint16(attrSize))
	attr := make([]byte, attrSize)
	if attrSize >= 8 {
		binary.LittleEndian.PutUint64(attr, ticks)
	}
	return append(b, attr...)
}

// timesAndNames is an archive whose records exercise what archive/zip
// decodes from a record: times from each kind of extra field, malformed
// ones, MS-DOS times, encodings, modes and comments.
func timesAndNames(t *testing.T) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	dos := time.Date(2021, 3, 4, 5, 6, 8, 0, time.UTC)
	for _, h := range []*zip.FileHeader{
		{Name: "plain.txt"},
		{Name: "dos.txt", Modified: dos.In(time.FixedZone("", 0))},
		{Name: "ext-time.txt", Extra: extra(extTimeExtraID, []byte{1, 0x10, 0x20, 0x30, 0x40})},
		{Name: "ext-time-no-mtime.txt", Extra: extra(extTimeExtraID, []byte{2, 0x10, 0x20, 0x30, 0x40})},
		{Name: "ext-time-short.txt", Extra: extra(extTimeExtraID, []byte{1, 0x10})},
		{Name: "unix.txt", Extra: extra(unixExtraID, le32b(1, 1600000000))},
		{Name: "infozip-unix.txt", Extra: extra(infoZipUnixExtraID, le32b(1, 1700000000, 0))},
		{Name: "unix-short.txt", Extra: extra(unixExtraID, le32b(1))},
		{Name: "ntfs.txt", Extra: extra(ntfsExtraID, ntfsTime(132_000_000_000_000_123, 24))},
		{Name: "ntfs-other-attr.txt", Extra: extra(ntfsExtraID, ntfsTime(1, 16))},
		{Name: "ntfs-short.txt", Extra: extra(ntfsExtraID, []byte{1, 2})},
		{Name: "ntfs-then-unix.txt", Extra: extra(ntfsExtraID, ntfsTime(132_000_000_000_000_000, 24), unixExtraID, le32b(0, 1500000000))},
		{Name: "truncated-field.txt", Extra: append(extra(extTimeExtraID, []byte{1, 1, 2, 3, 4}), 0x0d, 0, 0x20, 0)},
		{Name: "zone-far.txt", Modified: dos, Extra: extra(unixExtraID, le32b(0, 2000000000))},
		// The MS-DOS time below is 2025-01-01 07:18:30, 1735715910 in
		// Unix time: zones +2:00 and +5:45 (rounded to 15 minutes).
		{Name: "zone.txt", Extra: extra(unixExtraID, le32b(0, 1735715910-2*3600))},
		{Name: "zone-rounded.txt", Extra: extra(extTimeExtraID, append([]byte{1}, le32b(1735715910-(5*3600+44*60+50))...))},
		{Name: "caf\u00e9.txt", Comment: "comment \u00e9"},
		{Name: "caf\u00e9-nonutf8.txt", NonUTF8: true},
		{Name: "latin1-\xe9.txt"},
		{Name: "back\\slash-or-yen.txt"},
		{Name: "back\\slash-nonutf8.txt", NonUTF8: true},
		{Name: "ro.txt", CreatorVersion: 0 << 8, ExternalAttrs: 0x01},
		{Name: "ntfs-dir", CreatorVersion: 11 << 8, ExternalAttrs: 0x10},
		{Name: "exec.sh", CreatorVersion: 3 << 8, ExternalAttrs: 0o100755 << 16},
		{Name: "setuid", CreatorVersion: 19 << 8, ExternalAttrs: 0o104711 << 16},
		{Name: "fifo", CreatorVersion: 3 << 8, ExternalAttrs: 0o010644 << 16},
	} {
		if h.Modified.IsZero() {
			//lint:ignore SA1019 an MS-DOS time, with no extended one
			h.ModifiedDate, h.ModifiedTime = 0x5a21, 0x3a4f
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(h.Name))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSameAsArchiveZip reads every fixture and archives built to exercise
// the record decoder, and compares with archive/zip.
func TestSameAsArchiveZip(t *testing.T) {
	type input struct {
		name string
		b    []byte
	}
	var inputs []input
	for _, name := range fixtureNames(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{name, b})
	}
	inputs = append(inputs, input{"times and names", timesAndNames(t)}, input{"many", manyEntries(t)})
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			a, err := Open(context.Background(), driver.BytesBlob(in.b, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			sameAsArchiveZip(t, in.b, a)
		})
	}
}

// dataDescriptorLen is the length of the data descriptor that zip.Writer
// writes after each member: signature, CRC-32 and two 32-bit sizes.
const dataDescriptorLen = 16

// reverseDirectory returns b with its central directory records in
// reverse order.
func reverseDirectory(t *testing.T, b []byte) []byte {
	l := walk(t, b)
	out := bytes.Clone(b[:l.records[0]])
	for i := len(l.records) - 1; i >= 0; i-- {
		end := l.eocd
		if i+1 < len(l.records) {
			end = l.records[i+1]
		}
		out = append(out, b[l.records[i]:end]...)
	}
	return append(out, b[l.eocd:]...)
}

// TestDirectoryOrder: the records of a central directory need not be in
// the order of the entries' data; each entry's data must still end before
// the next entry in the file, and the duplicate rule follows the records.
func TestDirectoryOrder(t *testing.T) {
	ctx := context.Background()
	z := reverseDirectory(t, makeZip(t,
		entrySpec{"a.txt", text, zip.Deflate}, entrySpec{"d/b.txt", text[:100], zip.Store},
		entrySpec{"c.txt", nil, zip.Store}, entrySpec{"a.txt", []byte("first in the file"), zip.Store}))
	a, err := Open(ctx, driver.BytesBlob(z, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(a, 1<<20)
	want := map[string]string{"a.txt": string(text), "d/b.txt": string(text[:100]), "c.txt": ""}
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("files = %v, %v; want %v", slices.Sorted(maps.Keys(got)), err, slices.Sorted(maps.Keys(want)))
	}
	// The stored member's record now says more than its data and its
	// data descriptor: its data runs into the entry after it in the
	// file, which is before it in the directory.
	l := walk(t, z)
	bad := bytes.Clone(z)
	binary.LittleEndian.PutUint32(bad[l.records[2]+20:], 100+dataDescriptorLen+1)
	binary.LittleEndian.PutUint32(bad[l.records[2]+24:], 100+dataDescriptorLen+1)
	_, err = Open(ctx, driver.BytesBlob(bad, nil), nil)
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), `entry 2 "d/b.txt"`) || !strings.Contains(err.Error(), `entry 1 "c.txt"`) {
		t.Errorf("Open(overlap) = %v, want ErrCorrupt naming entries 2 and 1", err)
	}
}

// TestLargeDirectory reads a central directory larger than
// Limits.MaxDocument: it is read in pieces as its records need, and gives
// the same archive.
func TestLargeDirectory(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := range 3000 {
		if _, err := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("d%02d/file-with-a-longer-name-%05d.txt", i%37, i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	z := buf.Bytes()
	ctx := context.Background()
	var reads int
	blob := nthBlob{driver.BytesBlob(z, nil), &reads, -1, nil}
	whole, err := Open(ctx, blob, nil)
	if err != nil {
		t.Fatal(err)
	}
	wholeReads := reads
	reads = 0
	pieces, err := Open(ctx, blob, &vfs.Options{Limits: vfs.Limits{MaxDocument: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.dir) <= 2*minDirRead || reads <= wholeReads {
		t.Fatalf("directory of %d bytes read in %d reads, and %d with MaxDocument 1: not a test of pieces", len(whole.dir), wholeReads, reads)
	}
	sameAsArchiveZip(t, z, pieces)
	for d := range 37 {
		name := fmt.Sprintf("d%02d", d)
		a, err1 := whole.ReadDir(ctx, name)
		b, err2 := pieces.ReadDir(ctx, name)
		if err1 != nil || err2 != nil || len(a) != len(b) {
			t.Fatalf("ReadDir(%s) = %d, %v and %d, %v", name, len(a), err1, len(b), err2)
		}
		for i := range a {
			if a[i].Name() != b[i].Name() {
				t.Errorf("ReadDir(%s)[%d] = %q and %q", name, i, a[i].Name(), b[i].Name())
			}
		}
	}
}

// exposableRef is what exposable computes, in the terms of its
// documentation.
func exposableRef(name string) bool {
	return name != "." && fs.ValidPath(name) && !strings.ContainsAny(name, "\x00\\")
}

// TestExposable checks exposable against the definition on names at the
// edges of each rule.
func TestExposable(t *testing.T) {
	for _, name := range []string{
		"", ".", "..", "/", "a", "a/b", "a/", "/a", "a//b", "./a", "a/.", "a/..", "a/./b", "a/../b",
		"...", ".a", "a.", "..a/b", "a/..b", "a\x00b", "a\\b", "\\", "\x00", "a:b", "C:/x",
		"é", "a/é/b", "\xff", "a/\xff", "\xc3", "\xc3\xa9\xc3", "\xed\xa0\x80", "\u2028", "a\x7fb",
	} {
		if got, want := exposable(name), exposableRef(name); got != want {
			t.Errorf("exposable(%q) = %v, want %v", name, got, want)
		}
	}
}

// FuzzExposable checks exposable against the definition on any name.
func FuzzExposable(f *testing.F) {
	for _, s := range []string{"a/b", "./a", "a/../b", "a\\b", "é/\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := exposable(name), exposableRef(name); got != want {
			t.Errorf("exposable(%q) = %v, want %v", name, got, want)
		}
	})
}
