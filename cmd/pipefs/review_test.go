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
		ModTime *string `json:"modTime"`
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
		t.Errorf("stat --json has a zero modTime:\n%s", raw)
	}
}
