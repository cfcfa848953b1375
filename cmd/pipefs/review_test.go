package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// h5pyFile returns the file: pipeline of a test file of the HDF5 adapter,
// written by h5py (its dump is testdata/h5py/dumps/NAME.json there).
func h5pyFile(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "adapters", "hdf5adapter", "testdata", "h5py", name))
	if err != nil {
		t.Fatal(err)
	}
	return "file:" + filepath.ToSlash(p)
}

// TestLsLinks lists HDF5 links as GNU ls lists symbolic links: "l" and
// "name -> target", the targets h5py reports; a missing time is "-".
func TestLsLinks(t *testing.T) {
	out := mustRun(t, "ls", "-l", h5pyFile(t, "links_latest.h5"))
	for _, want := range []string{
		"0  lr--r--r--  -                    dangling -> /no/such/object\n",
		"0  lr--r--r--  -                    ext_missing -> missing.h5:/x\n",
		"0  lr--r--r--  -                    ext_other -> types_latest.h5:/int/i4_le\n",
		"10  -r--r--r--  -                    relative\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ls -l: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "0001-01-01") || strings.Contains(out, "Lr-") {
		t.Errorf("ls -l shows the zero time or Go's L:\n%s", out)
	}
	out = mustRun(t, "ls", "-l", h5pyFile(t, "links_latest.h5")+"|hdf5:/data/")
	if !strings.Contains(out, "lr--r--r--  -  cycle -> /\n") {
		t.Errorf("ls -l of a cycle link:\n%s", out)
	}
}

// TestStatLinks describes a link that cannot be followed instead of
// failing, and leaves out a time the file does not record.
func TestStatLinks(t *testing.T) {
	f := h5pyFile(t, "links_latest.h5")
	out := mustRun(t, "stat", f+"|hdf5:/ext_other")
	for _, want := range []string{"Name:     ext_other\n", "Type:     symbolic link\n",
		"Target:   types_latest.h5:/int/i4_le\n", "Mode:     lr--r--r--\n", "Header:   *hdf5adapter.ExternalLink\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stat ext_other: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "Modified:") {
		t.Errorf("stat prints a time the file does not record:\n%s", out)
	}
	out = mustRun(t, "stat", f+"|hdf5:/dangling")
	if !strings.Contains(out, "Target:   /no/such/object\n") {
		t.Errorf("stat dangling:\n%s", out)
	}
	// What does not exist still fails.
	if r := runCLI(t, "stat", f+"|hdf5:/no_such"); r.code != 1 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("stat of a missing name: exit %d, %s", r.code, r.stderr)
	}
}

// TestStatHDF5Header writes the HDF5 header as text to read and as
// nested JSON, not as Go struct dumps.
func TestStatHDF5Header(t *testing.T) {
	extra := fixture(t, "hdf5/earliest_extra.hdf5")
	out := mustRun(t, "stat", extra+"|hdf5:/compound")
	if !strings.Contains(out, "  DType:    |V12 compound {x: <i4 integer at 0; y: <f8 float at 4}\n") {
		t.Errorf("stat compound:\n%s", out)
	}
	out = mustRun(t, "array", extra+"|hdf5:/compound")
	if !strings.Contains(out, "hdf5 type:       |V12 compound {x: <i4 integer at 0; y: <f8 float at 4} (12 bytes)\n") {
		t.Errorf("array compound:\n%s", out)
	}
	out = mustRun(t, "stat", extra+"|hdf5:/enum")
	if !strings.Contains(out, "|u1 enum {") || !strings.Contains(out, "RED=0") || !strings.Contains(out, "GREEN=1") {
		t.Errorf("stat enum:\n%s", out)
	}
	out = mustRun(t, "stat", h5pyFile(t, "filters_latest.h5")+"|hdf5:/shuffle_gzip")
	if !strings.Contains(out, "shuffle (id 2, values [") || strings.Contains(out, "{2 shuffle") {
		t.Errorf("stat filters:\n%s", out)
	}
	out = mustRun(t, "stat", h5pyFile(t, "links_latest.h5")+"|hdf5:/")
	for _, want := range []string{"dangling -> /no/such/object (soft)", "ext_other -> types_latest.h5:/int/i4_le (external)", "d00 (hard)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stat links: no %q in\n%s", want, out)
		}
	}

	var js struct {
		ModTime *string `json:"mod_time"`
		Header  struct {
			DType struct {
				NumPy  string `json:"numpy"`
				Fields []struct {
					Name   string `json:"name"`
					Offset int    `json:"offset"`
				} `json:"fields"`
			} `json:"dtype"`
		} `json:"header"`
	}
	raw := mustRun(t, "stat", "--json", extra+"|hdf5:/compound")
	if err := json.Unmarshal([]byte(raw), &js); err != nil {
		t.Fatalf("stat --json: %v\n%s", err, raw)
	}
	if d := js.Header.DType; d.NumPy != "|V12" || len(d.Fields) != 2 || d.Fields[1].Name != "y" || d.Fields[1].Offset != 4 {
		t.Errorf("stat --json dtype: %+v\n%s", d, raw)
	}
	if js.ModTime != nil {
		t.Errorf("stat --json has a zero mod_time:\n%s", raw)
	}
}

// TestArrayImage describes what an image file states about colour, as
// the test images' README gives it.
func TestArrayImage(t *testing.T) {
	out := mustRun(t, "array", "file:"+testImagePath(t, "jpeg-icc.jpg")+"|jpeg:")
	for _, want := range []string{"image channels:  RGB\n", "image color:     YCbCr\n", "image bit depth: 8\n",
		"image ICC:       embedded (not applied)\n", "image page:      1 of 1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("array jpeg-icc: no %q in\n%s", want, out)
		}
	}
	out = mustRun(t, "array", "file:"+testImagePath(t, "jpeg-orientation.jpg")+"|jpeg:")
	if !strings.Contains(out, "image orient:    6 (not applied)\n") {
		t.Errorf("array jpeg-orientation:\n%s", out)
	}
	out = mustRun(t, "array", "file:"+testImagePath(t, "tiff-multipage.tif")+"|tiff:")
	if !strings.Contains(out, "image page:      1 of 3\n") || !strings.Contains(out, "shape:           [24 32 3]\n") {
		t.Errorf("array tiff-multipage:\n%s", out)
	}
	var js struct {
		Image struct {
			Channels string `json:"channels"`
			ICC      bool   `json:"icc"`
		} `json:"image"`
	}
	raw := mustRun(t, "array", "--json", "file:"+testImagePath(t, "png-icc.png")+"|png:")
	if err := json.Unmarshal([]byte(raw), &js); err != nil || !js.Image.ICC || js.Image.Channels == "" {
		t.Errorf("array --json png-icc: %v %+v\n%s", err, js, raw)
	}
}

// TestArrayStats prints what array read, as cat --stats does.
func TestArrayStats(t *testing.T) {
	srv := fixtureServer(t)
	url := srv.URL() + "/hdf5/earliest_extra.hdf5|hdf5:/compact"
	for _, args := range [][]string{{"--stats", "array", url}, {"--stats", "array", "--read", url}} {
		r := runCLI(t, args...)
		if r.code != 0 || !strings.Contains(r.stderr, "pipefs: stats: sub-URL 0 ") || !strings.Contains(r.stderr, "requests") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// TestMessages names CLI flags and commands, not Go APIs, and says the
// same thing once.
func TestMessages(t *testing.T) {
	extra := fixture(t, "hdf5/earliest_extra.hdf5")
	r := runCLI(t, "array", "--strings", extra+"|hdf5:/compact")
	if r.code != 1 || !strings.Contains(r.stderr, "uint16 elements are not strings; write them with --read or --box") || strings.Contains(r.stderr, "ReadBox") {
		t.Errorf("array --strings of numbers: exit %d, %s", r.code, r.stderr)
	}
	r = runCLI(t, "cat", extra+"|hdf5:/many")
	if r.code != 1 || !strings.Contains(r.stderr, "is a directory (list it with pipefs ls)\n") {
		t.Errorf("cat of a directory: exit %d, %s", r.code, r.stderr)
	}
	out := mustRun(t, "array", extra+"|hdf5:/compact")
	if !strings.Contains(out, "fill value:      undefined (reads as zeros)\n") || !strings.Contains(out, "hdf5 fill:       undefined (reads as zeros)\n") || strings.Contains(out, "null") {
		t.Errorf("array of a dataset without a fill value:\n%s", out)
	}
}
