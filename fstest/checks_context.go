package fstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// checkContext checks that the FS honours its context: a copy made with
// WithContext of a cancelled (or expired) context fails every method with
// the context's error while the original keeps working; a file keeps the
// context it was opened with, so cancelling it fails later reads; and
// opening the pipeline with a cancelled context fails.
func checkContext(t *testing.T, k *kit) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), time.Unix(1, 0))
	defer cancel2()

	file := ""
	if len(k.files) > 0 {
		file = k.sampleFiles(1)[0]
	}
	for _, c := range []struct {
		what string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"expired", expired, context.DeadlineExceeded},
	} {
		g := k.fsys.WithContext(c.ctx)
		if g.Context() != c.ctx {
			t.Errorf("WithContext(ctx).Context() is not ctx")
		}
		names := []string{"."}
		if file != "" {
			names = append(names, file)
		}
		for _, name := range names {
			for _, o := range fsOps {
				if o.op == "sub" && name == "." {
					continue // Sub(".") may return the FS itself
				}
				call := fmt.Sprintf("WithContext(%s).%s", c.what, callName(o.op, name))
				wantPathError(t, call, o.call(g, name), o.op, name, c.want)
			}
		}
		if _, err := k.fsys.Stat("."); err != nil {
			t.Errorf("Stat(\".\") on the original FS after WithContext(%s) error = %v, want nil", c.what, err)
		}
		_, err := vfs.OpenFS(c.ctx, k.c.Pipeline, k.c.Options)
		wantIs(t, fmt.Sprintf("vfs.OpenFS(%s, %q)", c.what, k.c.Pipeline), err, c.want)
		if file != "" {
			_, err := vfs.Open(c.ctx, k.fsys.URL(file), k.c.Options)
			wantIs(t, fmt.Sprintf("vfs.Open(%s, %q)", c.what, k.fsys.URL(file)), err, c.want)
		}
	}

	// A file and a directory opened under a context that is cancelled
	// afterwards.
	ctx, cancel3 := context.WithCancel(t.Context())
	g := k.fsys.WithContext(ctx)
	var f *vfs.File
	if file != "" {
		var err error
		if f, err = g.OpenFile(file); err != nil {
			t.Fatalf("OpenFile(%q) error = %v", file, err)
		}
		defer f.Close()
	}
	d, err := g.OpenFile(".")
	if err != nil {
		t.Fatalf("OpenFile(\".\") error = %v", err)
	}
	defer d.Close()
	cancel3()
	if f != nil {
		buf := make([]byte, 1)
		_, err := f.ReadAt(buf, 0)
		wantIs(t, fmt.Sprintf("after cancel, OpenFile(%q).ReadAt", file), err, context.Canceled)
		_, err = f.Read(buf)
		wantIs(t, fmt.Sprintf("after cancel, OpenFile(%q).Read", file), err, context.Canceled)
	}
	_, err = d.ReadDir(-1)
	wantIs(t, "after cancel, OpenFile(\".\").ReadDir(-1)", err, context.Canceled)
}
