package disk

import (
	"strconv"
	"testing"
)

// TestTrimListings checks that small writes do not each list the
// directory: a process lists it at its first write and again after each
// 1/64 of the budget it writes, while the store stays under its budget.
func TestTrimListings(t *testing.T) {
	const budget = 64 << 20
	s := open(t, budget)
	data := make([]byte, 4096)
	per := int64(headerSize + 4 + len(data) + trailer) // keys "1000".."1999"
	const n = 1000
	for i := range n {
		if err := s.Put(strconv.Itoa(1000+i), data); err != nil {
			t.Fatal(err)
		}
	}
	// The first write lists; so does every write that takes the bytes
	// written since the last listing over budget/relist, the k-th.
	k := budget/relist/per + 1
	want := 1 + (n-1)/k
	if s.listings != want {
		t.Errorf("%d puts listed the directory %d times, want %d", n, s.listings, want)
	}
	if got := s.Size(); got != n*per {
		t.Errorf("size %d, want %d", got, n*per)
	}
}

// TestTrimOtherProcess checks the bound with two stores on one directory,
// as two processes: what one writes is counted by the other within
// budget/relist of its own writes, and the store is then trimmed.
func TestTrimOtherProcess(t *testing.T) {
	const entry = 1 << 10
	const budget = 256 * entry
	a := open(t, budget)
	b, err := Open(a.Dir(), budget)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, entry-64)
	if err := a.Put("a0", data); err != nil { // a lists the empty store
		t.Fatal(err)
	}
	for i := range 250 { // b fills the store to near its budget
		if err := b.Put("b"+strconv.Itoa(i), data); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 20; i++ {
		if err := a.Put("a"+strconv.Itoa(i), data); err != nil {
			t.Fatal(err)
		}
		if got := a.Size(); got > budget+budget/relist+entry {
			t.Fatalf("after %d writes by a: size %d, over the budget %d by more than budget/%d", i, got, budget, relist)
		}
	}
	if got := a.Size(); got > budget {
		t.Errorf("size %d after a wrote more than budget/%d: over the budget %d", got, relist, budget)
	}
}
