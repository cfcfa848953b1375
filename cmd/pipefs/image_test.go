package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testImagePath returns the absolute path of a test image of the image
// adapters.
func testImagePath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "adapters", "imageadapter", "testdata", "images", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImageCLI reads images through the commands: cat gives the pixels,
// stat the description, ls the pages of a TIFF.
func TestImageCLI(t *testing.T) {
	png := testImagePath(t, "png-rgba8.png")
	want, err := os.ReadFile(png + ".rgba")
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, "cat", "file:"+png+"|png:"); got != string(want) {
		t.Errorf("cat png: %d bytes, equal to the reference: %v", len(got), got == string(want))
	}
	stat := mustRun(t, "stat", "file:"+png+"|png:")
	fields := map[string]string{}
	for _, l := range strings.Split(stat, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	for k, v := range map[string]string{"Size": "3072", "Header": "*imageadapter.Image", "Shape": "[24 32 4]", "Channels": "RGBA", "DType": "uint8"} {
		if fields[k] != v {
			t.Errorf("stat: %s is %q, want %q:\n%s", k, fields[k], v, stat)
		}
	}
	tif := testImagePath(t, "tiff-multipage.tif")
	ls := mustRun(t, "ls", "file:"+tif+"|pipefs.pages:page/")
	if ls != "0\n1\n2\n" {
		t.Errorf("ls pages = %q, want 0 1 2", ls)
	}
	long := mustRun(t, "ls", "-l", "file:"+tif+"|pipefs.pages:page/")
	var sizes []string
	for _, l := range strings.Split(strings.TrimSpace(long), "\n") {
		sizes = append(sizes, strings.Fields(l)[0])
	}
	if strings.Join(sizes, " ") != "2304 192 144" {
		t.Errorf("ls -l pages:\n%s\nwant sizes 2304 192 144", long)
	}
	if got := mustRun(t, "cat", "file:"+tif+"|pipefs.pages:page/1"); len(got) != 16*12 {
		t.Errorf("cat page/1: %d bytes, want 192", len(got))
	}
}
