package vfs_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// gzipOf compresses data.
func gzipOf(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// stageSummary is what a test checks of a Stage.
type stageSummary struct {
	url      string
	detected bool
	kind     vfs.Kind
	size     int64
}

func summarize(stages []vfs.Stage) []stageSummary {
	var out []stageSummary
	for _, s := range stages {
		out = append(out, stageSummary{s.SubURL.String(), s.Detected, s.Kind, s.Size})
	}
	return out
}

func sameStages(t *testing.T, what string, got []vfs.Stage, want []stageSummary) {
	t.Helper()
	g := summarize(got)
	if len(g) != len(want) {
		t.Fatalf("%s: Stages() = %+v, want %+v", what, g, want)
	}
	for i := range g {
		if g[i] != want[i] {
			t.Errorf("%s: Stages()[%d] = %+v, want %+v", what, i, g[i], want[i])
		}
		if got[i].Index != i {
			t.Errorf("%s: Stages()[%d].Index = %d", what, i, got[i].Index)
		}
		if got[i].Summary == "" {
			t.Errorf("%s: Stages()[%d].Summary is empty", what, i)
		}
	}
}

// totals returns the sums of OpenCost and of Counts over stages.
func totals(stages []vfs.Stage) (open, counted driver.Counts) {
	for _, s := range stages {
		open.Requests += s.OpenCost.Requests
		open.Bytes += s.OpenCost.Bytes
		counted.Requests += s.Counts.Requests
		counted.Bytes += s.Counts.Bytes
	}
	return open, counted
}

// TestStagesDetected checks that Stages tells the sub-URLs a caller wrote
// from those detection appended, with their kinds and sizes.
func TestStagesDetected(t *testing.T) {
	ctx := context.Background()
	inner := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello")}, 0)
	outer := fstest.ZipBytes(map[string][]byte{"in.zip": inner}, 0)
	prefix := fstest.MapFiles(t, map[string][]byte{"o.zip": outer})
	root := "memory:/" + prefix + "/o.zip"

	fsys, err := vfs.OpenFS(ctx, root+"|zip:in.zip", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	sameStages(t, "OpenFS", fsys.Stages(), []stageSummary{
		{root, false, vfs.KindFile, int64(len(outer))},
		{"zip:in.zip", false, vfs.KindFile, int64(len(inner))},
		{"zip:", true, vfs.KindDirectory, -1},
	})
	// The memory root counts the reads of its blob, all made by the opens
	// of the zip layers: they are reported on those layers.
	var opens driver.Counts
	for _, s := range fsys.Stages() {
		if s.Counting != (s.Index == 0) {
			t.Errorf("stage %d counting = %v, want only the memory root to count", s.Index, s.Counting)
		}
		opens.Requests += s.OpenCost.Requests
		opens.Bytes += s.OpenCost.Bytes
	}
	if root := fsys.Stages()[0]; root.OpenCost != (driver.Counts{}) || root.Counts.Requests == 0 ||
		root.Counts.Bytes < int64(len(inner)) || root.Counts != opens {
		t.Errorf("the memory root counted %+v, its open %+v; the opens cost %+v", root.Counts, root.OpenCost, opens)
	}

	f, err := vfs.Open(ctx, root+"|zip:in.zip|zip:a.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sameStages(t, "OpenFile", f.Stages(), []stageSummary{
		{root, false, vfs.KindFile, int64(len(outer))},
		{"zip:in.zip", false, vfs.KindFile, int64(len(inner))},
		{"zip:a.txt", false, vfs.KindFile, 5},
	})
	g, err := fsys.OpenFile("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if s := g.Stages(); s != nil {
		t.Errorf("Stages() of a file opened from an FS = %+v, want nil", s)
	}
}

// TestStagesSizeOfStream checks that the size of a decompressed stream is
// unknown until it has been read.
func TestStagesSizeOfStream(t *testing.T) {
	text := bytes.Repeat([]byte("pipefs "), 1000)
	prefix := fstest.MapFiles(t, map[string][]byte{"t.gz": gzipOf(t, text)})
	f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/t.gz|gzip:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s := f.Stages(); len(s) != 2 || s[1].Size != -1 || s[1].Kind != vfs.KindFile {
		t.Fatalf("Stages() before reading = %+v, want 2 stages, the second a file of unknown size", s)
	}
	if _, err := io.Copy(io.Discard, f); err != nil {
		t.Fatal(err)
	}
	if s := f.Stages(); s[1].Size != int64(len(text)) {
		t.Errorf("Stages()[1].Size after reading = %d, want %d", s[1].Size, len(text))
	}
}

// TestOpenDetect checks that OpenDetect opens a directory, a container
// file and a plain file, each once: what the stages count is what the
// server served, and a plain file costs one request.
func TestOpenDetect(t *testing.T) {
	ctx := context.Background()
	text := []byte("plain text, no format")
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"a.txt":    text,
		"a.txt.gz": gzipOf(t, text),
		"site.zip": fstest.ZipBytes(map[string][]byte{"d/b.txt": []byte("bee")}, 0),
	})
	tests := []struct {
		name     string
		pipeline string
		opts     *vfs.Options
		dir      bool
		resolved string
		requests int64
	}{
		{"plain file", srv.URL() + "/a.txt", nil, false, srv.URL() + "/a.txt", 1},
		{"container", srv.URL() + "/site.zip", nil, true, srv.URL() + "/site.zip|zip:", 1},
		{"container, no detection", srv.URL() + "/site.zip", &vfs.Options{NoDetect: true}, false, srv.URL() + "/site.zip", 1},
		{"a stream of a plain file", srv.URL() + "/a.txt.gz", nil, false, srv.URL() + "/a.txt.gz", 1},
		{"a directory in a container", srv.URL() + "/site.zip|zip:d/", nil, true, srv.URL() + "/site.zip|zip:d/", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			o := &vfs.Options{Cache: vfs.NewCache(1 << 20)}
			if tc.opts != nil {
				o.NoDetect = tc.opts.NoDetect
			}
			fsys, file, err := vfs.OpenDetect(ctx, tc.pipeline, o)
			if err != nil {
				t.Fatal(err)
			}
			var stages []vfs.Stage
			var resolved string
			if fsys != nil {
				defer fsys.Close()
				stages, resolved = fsys.Stages(), fsys.Pipeline().String()
			} else {
				defer file.Close()
				stages, resolved = file.Stages(), file.URL()
			}
			if (fsys != nil) != tc.dir || (fsys == nil) == (file == nil) {
				t.Fatalf("OpenDetect(%q) = %v, %v; want a directory: %v", tc.pipeline, fsys, file, tc.dir)
			}
			if resolved != tc.resolved {
				t.Errorf("OpenDetect(%q) opened %q, want %q", tc.pipeline, resolved, tc.resolved)
			}
			if last := stages[len(stages)-1]; last.SubURL.String() != vfs.MustParse(resolved)[len(stages)-1].String() {
				t.Errorf("last stage %q, pipeline %q", last.SubURL, resolved)
			}
			open, counted := totals(stages)
			if srv.Requests() != tc.requests || open.Requests != srv.Requests() || open.Bytes != srv.Bytes() ||
				counted.Requests != srv.Requests() || counted.Bytes != srv.Bytes() {
				t.Errorf("server: %d requests, %d bytes (want %d requests); stages: open %+v, counted %+v; log %v",
					srv.Requests(), srv.Bytes(), tc.requests, open, counted, srv.Log())
			}
		})
	}
}

// TestOpenDetectErrors checks that OpenDetect fails as OpenFS does on a
// file named as a directory, and names the sub-URL.
func TestOpenDetectErrors(t *testing.T) {
	prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": fstest.ZipBytes(map[string][]byte{"a.txt": nil}, 0)})
	_, _, err := vfs.OpenDetect(context.Background(), "memory:/"+prefix+"/a.zip|zip:a.txt/", nil)
	var se *vfs.StageError
	if !errors.Is(err, vfs.ErrNotDir) || !errors.As(err, &se) || se.Index != 1 {
		t.Errorf("OpenDetect of a file named as a directory = %v, want ErrNotDir at sub-URL 1", err)
	}
	_, _, err = vfs.OpenDetect(context.Background(), "memory:/"+prefix+"/a.zip|zip:b.txt", nil)
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &se) || se.Index != 1 {
		t.Errorf("OpenDetect of a missing member = %v, want fs.ErrNotExist at sub-URL 1", err)
	}
}
