//go:build ignore

// Command gen writes the zip fixtures that need archive/zip's writer:
// names and layouts that tools refuse to produce. Run by ../make.sh.
package main

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"
)

var mod = time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)

type member struct {
	name    string
	body    string
	method  uint16
	mode    fs.FileMode // 0: regular 0644
	comment string
}

func build(comment string, ms ...member) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	if comment != "" {
		if err := w.SetComment(comment); err != nil {
			log.Fatal(err)
		}
	}
	for _, m := range ms {
		h := &zip.FileHeader{Name: m.name, Method: m.method, Modified: mod, Comment: m.comment}
		switch {
		case m.mode != 0:
			h.SetMode(m.mode)
		case strings.HasSuffix(m.name, "/"):
			h.SetMode(fs.ModeDir | 0o755)
		default:
			h.SetMode(0o644)
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := f.Write([]byte(m.body)); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func main() {
	out := os.Args[1]
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	// Members with no directory entries: every parent is implied.
	write("go-implicit.zip", build("",
		member{name: "a/b/c.txt", body: "c\n", method: zip.Deflate},
		member{name: "a/d.txt", body: "d\n", method: zip.Store},
		member{name: "e/f/g/h.txt", body: "h\n", method: zip.Deflate},
		member{name: "top.txt", body: "top\n", method: zip.Store},
	))
	// Archive and file comments.
	write("go-comments.zip", build("archive comment: made by archive/zip",
		member{name: "x.txt", body: "x\n", method: zip.Deflate, comment: "file comment of x"},
		member{name: "y/", comment: "a directory"},
		member{name: "y/z.txt", body: "z\n", method: zip.Store, comment: "file comment of z"},
	))
	// Duplicates: the last record wins; a directory beats a file.
	write("go-dups.zip", build("",
		member{name: "same.txt", body: "first\n", method: zip.Deflate},
		member{name: "same.txt", body: "second\n", method: zip.Store},
		member{name: "same.txt", body: "third\n", method: zip.Deflate},
		member{name: "d", body: "file d, hidden by the directory\n", method: zip.Store},
		member{name: "d/in.txt", body: "in d\n", method: zip.Store},
		member{name: "e/", method: zip.Store},
		member{name: "e", body: "file e, hidden by the directory\n", method: zip.Deflate},
	))
	// Unsafe names are never reachable; the safe one is.
	write("go-unsafe.zip", build("",
		member{name: "../evil.txt", body: "evil\n"},
		member{name: "/abs.txt", body: "abs\n"},
		member{name: `back\slash.txt`, body: "back\n"},
		member{name: "C:/drive.txt", body: "drive\n"},
		member{name: "c:drive2.txt", body: "drive\n"},
		member{name: "a//b.txt", body: "empty elem\n"},
		member{name: "./dot.txt", body: "dot\n"},
		member{name: "x/../y.txt", body: "dotdot\n"},
		member{name: "nul\x00.txt", body: "nul\n"},
		member{name: "", body: "empty\n"},
		member{name: "ok/safe.txt", body: "safe\n", method: zip.Deflate},
	))
	// A symbolic link, listed and never followed.
	write("go-symlink.zip", build("",
		member{name: "target.txt", body: "target\n"},
		member{name: "link", body: "target.txt", mode: fs.ModeSymlink | 0o777},
		member{name: "escape", body: "../../etc/passwd", mode: fs.ModeSymlink | 0o777},
	))
	// Three levels of nesting, stored at every level.
	deep := build("", member{name: "hello.txt", body: "hello from three zips down\n", method: zip.Store})
	mid := build("", member{name: "m.txt", body: "middle\n", method: zip.Store},
		member{name: "deep/deep.zip", body: string(deep), method: zip.Store})
	write("nest-stored.zip", build("", member{name: "o.txt", body: "outer\n", method: zip.Store},
		member{name: "mid.zip", body: string(mid), method: zip.Store}))
	// The same with deflate at every level.
	deep = build("", member{name: "hello.txt", body: "hello from three zips down\n", method: zip.Deflate})
	mid = build("", member{name: "m.txt", body: "middle\n", method: zip.Deflate},
		member{name: "deep/deep.zip", body: string(deep), method: zip.Deflate})
	write("nest-deflate.zip", build("", member{name: "o.txt", body: "outer\n", method: zip.Deflate},
		member{name: "mid.zip", body: string(mid), method: zip.Deflate}))
	// An empty archive: only the end record.
	write("go-empty.zip", build(""))
}
