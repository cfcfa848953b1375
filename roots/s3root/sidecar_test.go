package s3root_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/fstest/cloudtest"
	"github.com/pipefs/pipefs/roots/s3root"
	"github.com/pipefs/pipefs/vfs"
)

// TestSidecars shares the indexes of a tar.gz between processes through
// the bucket that holds it, on versitygw: see cloudtest.CheckSidecars.
func TestSidecars(t *testing.T) {
	needGW(t)
	bucket(t, "side", false)
	ctx := context.Background()
	admin := gw.Admin()
	cloudtest.CheckSidecars(t, cloudtest.SidecarStore{
		URL:    "s3://side/data/src.tar.gz",
		Object: "data/src.tar.gz",
		Options: func(d *disk.Store, m vfs.SidecarMode) *vfs.Options {
			o := withS3(&s3root.Options{Config: cfg, Endpoint: "http://" + gwProxy.Addr})
			o.Cache, o.Disk, o.Sidecar = vfs.NewCache(0), d, m
			return o
		},
		Put: func(name string, data []byte) { put(t, "side", name, data) },
		Get: func(name string) []byte {
			out, err := admin.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("side"), Key: aws.String(name)})
			if err != nil {
				t.Fatal(err)
			}
			defer out.Body.Close()
			b, err := io.ReadAll(out.Body)
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		List: func(prefix string) []string {
			out, err := admin.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("side"), Prefix: aws.String(prefix)})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range out.Contents {
				names = append(names, aws.ToString(o.Key))
			}
			return names
		},
		Requests: gwProxy.Take,
	})
}

// TestSidecarWriteDenied: a sidecar the bucket refuses is logged once,
// and the process reads the archive as without sidecars.
func TestSidecarWriteDenied(t *testing.T) {
	needGW(t)
	bucket(t, "side", false)
	files := map[string][]byte{"big.bin": fstest.RandomBytes(3<<19, 9), "a.txt": []byte("alpha\n")}
	put(t, "side", "denied/src.tar.gz", fstest.TarGzBytes(files))
	// The proxy breaks the signature of every write: versitygw answers 403.
	deny := newCounter(t, gw.Addr, func(r *http.Request) {
		if r.Method == http.MethodPut {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), "Signature=", "Signature=0", 1))
		}
	})
	defer deny.Close()
	var logged bytes.Buffer
	o := withS3(&s3root.Options{Config: cfg, Endpoint: "http://" + deny.Addr})
	o.Cache, o.Sidecar = vfs.NewCache(0), vfs.SidecarWrite
	o.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	fsys, err := vfs.OpenFS(context.Background(), "s3://side/denied/src.tar.gz|gzip:|pipefs.tar:", o)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(fsys, "a.txt"); err != nil || string(b) != "alpha\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if err := fsys.Close(); err != nil {
		t.Fatal(err)
	}
	var puts int
	for _, r := range deny.Take() {
		if strings.HasPrefix(r, "PUT ") {
			puts++
		}
	}
	if puts != 3 {
		t.Errorf("%d writes, want 3 (gzip's head and index, the tar table), all refused", puts)
	}
	if n := strings.Count(logged.String(), "cannot write the sidecar index"); n != 1 {
		t.Errorf("logged %d warnings, want 1:\n%s", n, logged.String())
	}
	if !strings.Contains(logged.String(), "s3://side/denied/src.tar.gz") || !strings.Contains(logged.String(), "permission denied") || !strings.Contains(logged.String(), "--sidecar=read") {
		t.Errorf("the warning does not name the object and the cause:\n%s", logged.String())
	}
}

// TestSidecarCancel: a sidecar read that the server stalls ends with the
// context of the open that asked for it.
func TestSidecarCancel(t *testing.T) {
	needGW(t)
	bucket(t, "side", false)
	files := map[string][]byte{"big.bin": fstest.RandomBytes(3<<19, 11), "a.txt": []byte("alpha\n")}
	put(t, "side", "stall/src.tar.gz", fstest.TarGzBytes(files))
	stall := newCounter(t, gw.Addr, func(r *http.Request) {
		if strings.Contains(r.URL.Path, vfs.SidecarSuffix) {
			<-r.Context().Done() // until the client gives up
		}
	})
	defer stall.Close()
	o := withS3(&s3root.Options{Config: cfg, Endpoint: "http://" + stall.Addr})
	o.Cache, o.Sidecar = vfs.NewCache(0), vfs.SidecarRead
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the sidecar is asked for.
		for ctx.Err() == nil {
			for _, r := range stall.Take() {
				if strings.Contains(r, vfs.SidecarSuffix) {
					cancel()
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	fsys, err := vfs.OpenFS(ctx, "s3://side/stall/src.tar.gz|gzip:|pipefs.tar:", o)
	if err == nil {
		_, err = fs.ReadFile(fsys, "a.txt")
		fsys.Close()
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestSidecarNotForZip: a zip's central directory is one read of its
// tail, as a sidecar would be, so a zip keeps none.
func TestSidecarNotForZip(t *testing.T) {
	needGW(t)
	bucket(t, "side", false)
	files := map[string][]byte{"big.bin": fstest.RandomBytes(3<<19, 12), "a.txt": []byte("alpha\n")}
	put(t, "side", "zip/a.zip", fstest.ZipBytes(files, zip.Store))
	o := withS3(&s3root.Options{Config: cfg, Endpoint: "http://" + gwProxy.Addr})
	o.Cache, o.Sidecar = vfs.NewCache(0), vfs.SidecarWrite
	gwProxy.Take()
	fsys, err := vfs.OpenFS(context.Background(), "s3://side/zip/a.zip|zip:", o)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(fsys, "a.txt"); err != nil || string(b) != "alpha\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	fsys.Close()
	for _, r := range gwProxy.Take() {
		if strings.Contains(r, vfs.SidecarSuffix) {
			t.Errorf("a sidecar request for a zip: %s", r)
		}
	}
}
