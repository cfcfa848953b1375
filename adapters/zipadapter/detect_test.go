package zipadapter

import (
	"archive/zip"
	"context"
	"errors"
	"strings"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/bzip2adapter"
	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/xzadapter"
	_ "github.com/pipefs/pipefs/adapters/zstdadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestTruncatedDetect: a zip cut short is reported as a damaged zip, not
// taken for a plain file, whether it is opened as a directory or as a
// file; a file that is no format stays a plain file.
func TestTruncatedDetect(t *testing.T) {
	whole := makeZip(t, entrySpec{"a.txt", text, zip.Deflate}, entrySpec{"b.txt", text, zip.Store})
	prefix := fstest.MapFiles(t, map[string][]byte{"cut.jar": whole[:len(whole)/2], "plain.txt": text})
	_, err := vfs.OpenFS(context.Background(), "memory:/"+prefix+"/cut.jar", nil)
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "zip") {
		t.Errorf("OpenFS(cut.jar) = %v, want ErrCorrupt from zip", err)
	}
	_, err = vfs.OpenFS(context.Background(), "memory:/"+prefix+"/plain.txt", nil)
	if !errors.Is(err, vfs.ErrUnknownFormat) {
		t.Errorf("OpenFS(plain.txt) = %v, want ErrUnknownFormat", err)
	}
	f, err := vfs.Open(context.Background(), "memory:/"+prefix+"/plain.txt", nil)
	if err != nil {
		t.Fatalf("OpenFile(plain.txt) = %v", err)
	}
	f.Close()
}

// TestWrongAdapter: a decompressor given a zip says that it is one.
func TestWrongAdapter(t *testing.T) {
	whole := makeZip(t, entrySpec{"a.txt", text, zip.Deflate})
	prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": whole, "cut.zip": whole[:len(whole)-30]})
	for _, name := range []string{"a.zip", "cut.zip"} {
		for _, a := range []string{"gzip", "zstd", "pipefs.xz", "pipefs.bzip2"} {
			_, err := vfs.Open(context.Background(), "memory:/"+prefix+"/"+name+"|"+a+":", nil)
			if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "the data looks like zip; try |zip:") {
				t.Errorf("%s|%s: = %v, want ErrCorrupt naming zip", name, a, err)
			}
		}
	}
	_, err := vfs.OpenFS(context.Background(), "memory:/"+prefix+"/cut.zip|zip:", nil)
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "not a zip archive") || strings.Contains(err.Error(), "try |zip:") {
		t.Errorf("cut.zip|zip: = %v, want ErrCorrupt without suggesting zip", err)
	}
}
