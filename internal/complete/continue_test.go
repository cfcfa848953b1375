package complete

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestCompleteLoneContinues checks that the only entry that matches what
// is typed comes with the adapter chains its bytes are detected as (a
// stream's output detected again), or its name suggests, and that a file
// that neither suggests stays alone.
func TestCompleteLoneContinues(t *testing.T) {
	files := memroot.NewStore()
	for name, data := range map[string]string{
		"d/c.unz":      "UNZTOY archive, compressed",
		"d/n.unz":      "no magic",
		"d/hidden.bin": "TOY archive",
		"d/plain.txt":  "text",
	} {
		if err := files.WriteFile(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	c := &Completer{Options: &vfs.Options{Registry: fstest.ToyRegistry(files)}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"memory:/d/c", []string{"memory:/d/c.unz", "memory:/d/c.unz|pipefs.unz:", "memory:/d/c.unz|pipefs.unz:|pipefs.toy:"}},
		{"memory:/d/h", []string{"memory:/d/hidden.bin", "memory:/d/hidden.bin|pipefs.toy:"}},
		{"memory:/d/n", []string{"memory:/d/n.unz", "memory:/d/n.unz|pipefs.unz:"}},
		{"memory:/d/p", []string{"memory:/d/plain.txt"}},
	} {
		got, err := c.Complete(t.Context(), tc.text)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("complete %q: %v\ngot  %q\nwant %q", tc.text, err, got, tc.want)
		}
	}
}

// TestCompleteSlowNamed checks that a base whose detection does not end
// in time, in a driver that does not heed its context, gets what was
// detected and what its name suggests, before the completion's deadline.
func TestCompleteSlowNamed(t *testing.T) {
	files := memroot.NewStore()
	if err := files.WriteFile("d/x.toy.slow", []byte("SLOW")); err != nil {
		t.Fatal(err)
	}
	g := fstest.ToyRegistry(files)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	g.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.slow", Extensions: []string{".slow"}, Stream: true,
		OpenFile: func(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			<-release // deaf to ctx
			return driver.Location{Blob: in}, nil
		}})
	g.RegisterFormat(&vfs.Format{Name: "slow", Adapter: "pipefs.slow:", Input: vfs.KindFile, Magic: "SLOW"})
	c := &Completer{Options: &vfs.Options{Registry: g}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"memory:/d/x.toy.slow|", []string{"memory:/d/x.toy.slow|pipefs.slow:", "memory:/d/x.toy.slow|pipefs.slow:|pipefs.toy:"}},
		{"memory:/d/x.toy.slow|pipefs.slow:", []string{"memory:/d/x.toy.slow|pipefs.slow:|pipefs.toy:"}},
		{"memory:/d/x", []string{"memory:/d/x.toy.slow", "memory:/d/x.toy.slow|pipefs.slow:", "memory:/d/x.toy.slow|pipefs.slow:|pipefs.toy:"}},
	} {
		// A deadline far enough for a busy machine: the third left
		// after detection's two thirds is the slack.
		ctx, cancel := context.WithTimeout(t.Context(), 900*time.Millisecond)
		got, err := c.Complete(ctx, tc.text)
		cancel()
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("complete %q: %v\ngot  %q\nwant %q", tc.text, err, got, tc.want)
		}
	}
}
