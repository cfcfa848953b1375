package vfs

import (
	"context"
	"errors"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// TestDetectNegativeSize checks that detection refuses a file whose size
// is negative instead of panicking.
func TestDetectNegativeSize(t *testing.T) {
	g := new(Registry)
	g.RegisterRoot(&Root{Scheme: "memory", Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Blob: lyingBlob{-5, 5}}, nil
	}})
	g.RegisterFormat(&Format{Name: "x", Adapter: "zip:", Input: KindFile, Magic: "PK"})
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("OpenFS panicked: %v", p)
			}
		}()
		_, err = OpenFS(context.Background(), "memory:a", &Options{Registry: g})
	}()
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("OpenFS = %v, want ErrCorrupt", err)
	}
}
