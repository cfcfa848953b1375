//go:build ignore

// gen writes the fixtures that tools will not write, with archive/tar.
// Run by make.sh; the tests spell out what each archive must read as.
package main

import (
	"archive/tar"
	"bytes"
	"log"
	"os"
	"time"
)

var mtime = time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)

type member struct {
	hdr  tar.Header
	data string
}

func file(name, data string) member {
	return member{tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mtime}, data}
}

func typed(t byte, name, link string) member {
	return member{tar.Header{Typeflag: t, Name: name, Linkname: link, Mode: 0o644, ModTime: mtime}, ""}
}

func write(name string, format tar.Format, ms ...member) {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, m := range ms {
		h := m.hdr
		if format != tar.FormatUnknown {
			h.Format = format
		}
		if err := w.WriteHeader(&h); err != nil {
			log.Fatalf("%s: %s: %v", name, h.Name, err)
		}
		if _, err := w.Write([]byte(m.data)); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	// Devices (need root with a real tool) and a FIFO.
	chr := typed(tar.TypeChar, "dev/null", "")
	chr.hdr.Devmajor, chr.hdr.Devminor = 1, 3
	blk := typed(tar.TypeBlock, "dev/sda", "")
	blk.hdr.Devmajor, blk.hdr.Devminor = 8, 0
	write("go-devices.tar", tar.FormatGNU,
		chr, blk, typed(tar.TypeFifo, "dev/fifo", ""), file("dev/readme.txt", "devices above\n"))

	// Duplicates: the last entry wins; a directory beats a file.
	write("go-dups.tar", tar.FormatUnknown,
		file("dup.txt", "first\n"),
		file("dup.txt", "second, the last\n"),
		file("d", "a file named d, hidden by the directory d\n"),
		file("d/x.txt", "x in d\n"),
		typed(tar.TypeDir, "e/", ""),
		file("e", "a file named e, hidden by the directory e\n"),
		file("./dot.txt", "named ./dot.txt\n"),
		file("dot.txt", "dot.txt again, the last\n"))

	// Unsafe names: never reachable.
	write("go-unsafe.tar", tar.FormatPAX,
		file("ok.txt", "the only safe member\n"),
		file("../evil.txt", "climbs out\n"),
		file("/abs.txt", "absolute\n"),
		file("a/../../b.txt", "climbs out\n"),
		file(`back\slash.txt`, "backslash\n"),
		file("C:/drive.txt", "drive letter\n"),
		file("a//b.txt", "empty element\n"))

	// Links: in, out, loops, chains, broken.
	write("go-links.tar", tar.FormatPAX,
		file("target.txt", "the target\n"),
		file("d/inner.txt", "inner\n"),
		typed(tar.TypeSymlink, "in", "target.txt"),
		typed(tar.TypeSymlink, "d/up", "../target.txt"),
		typed(tar.TypeSymlink, "d/self", "."),
		typed(tar.TypeSymlink, "dirlink", "d"),
		typed(tar.TypeSymlink, "chain1", "chain2"),
		typed(tar.TypeSymlink, "chain2", "dirlink/inner.txt"),
		typed(tar.TypeSymlink, "out-abs", "/etc/passwd"),
		typed(tar.TypeSymlink, "out-up", "../outside.txt"),
		typed(tar.TypeSymlink, "d/out-up2", "../../x"),
		typed(tar.TypeSymlink, "loop1", "loop2"),
		typed(tar.TypeSymlink, "loop2", "loop1"),
		typed(tar.TypeSymlink, "selfloop", "selfloop"),
		typed(tar.TypeLink, "hard1", "target.txt"),
		typed(tar.TypeLink, "hard2", "hard1"),
		typed(tar.TypeLink, "hardsym", "in"),
		typed(tar.TypeLink, "hard-missing", "nowhere.txt"),
		typed(tar.TypeLink, "hard-dir", "d"),
		typed(tar.TypeLink, "hloop1", "hloop2"),
		typed(tar.TypeLink, "hloop2", "hloop1"),
		typed(tar.TypeLink, "hard-before", "later.txt"),
		file("later.txt", "written after hard-before\n"),
		typed(tar.TypeLink, "hard-old", "target.txt"),
		file("target.txt", "the target, overwritten\n"))

	// Pax records and global headers.
	g := member{tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "global", PAXRecords: map[string]string{"comment": "global"}}, ""}
	p := file("pax.txt", "with records\n")
	p.hdr.PAXRecords = map[string]string{"comment": "a note", "SCHILY.xattr.user.k": "v"}
	write("go-pax.tar", tar.FormatPAX, g, p, file("after.txt", "after the global header\n"))
}
