package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArcpNotContainer: arcp of an HDF5 file, which detection reads as
// hdf5:, says in the words the user typed that HDF5 is no arcp
// container and which formats are, instead of naming the hdf5: sub-URL
// the user never wrote; the error matches fs.ErrInvalid.
func TestArcpNotContainer(t *testing.T) {
	data, err := os.ReadFile(strings.TrimPrefix(h5pyFile(t, "links_latest.h5"), "file:"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file.h5"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)

	r := runCLI(t, "arcp", "file.h5")
	for _, want := range []string{"pipefs: file.h5 is detected as hdf5: (HDF5", "no arcp container", "zip:, pipefs.tar:, ocdbt: and icechunk:"} {
		if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, want) {
			t.Errorf("arcp file.h5: exit %d, stdout %q, stderr %q; want exit 1 and %q", r.code, r.stdout, r.stderr, want)
		}
	}
	if strings.Contains(r.stderr, "|hdf5:") {
		t.Errorf("arcp file.h5 names a pipeline the user did not write: %s", r.stderr)
	}

	_, g := newRoot()
	if _, err := g.arcpURIs(t.Context(), "file.h5", true); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("arcpURIs(file.h5) = %v, want fs.ErrInvalid", err)
	}
}
