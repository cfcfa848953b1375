package vfs_test

import (
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// valueKey keys the values of the tests.
type valueKey struct{}

// Registry.Value makes a key's value once per registry, and two
// registries share none.
func TestRegistryValue(t *testing.T) {
	var made int
	mk := func() any { made++; return new(int) }
	one, two := new(vfs.Registry), new(vfs.Registry)
	a := one.Value(valueKey{}, mk)
	if b := one.Value(valueKey{}, mk); b != a || made != 1 {
		t.Errorf("a second Value of one registry: %p, made %d times; want %p, once", b, made, a)
	}
	if c := two.Value(valueKey{}, mk); c == a || made != 2 {
		t.Errorf("another registry: %p, made %d times; want a value of its own", c, made)
	}
}
