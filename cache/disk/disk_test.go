package disk

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, budget int64) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), budget)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRoundTrip(t *testing.T) {
	s := open(t, 0)
	if _, ok := s.Get("k", 0); ok {
		t.Fatal("hit in an empty store")
	}
	for _, data := range [][]byte{{}, []byte("hello"), bytes.Repeat([]byte{7}, 1<<20)} {
		if err := s.Put("k", data); err != nil {
			t.Fatal(err)
		}
		got, ok := s.Get("k", 0)
		if !ok || !bytes.Equal(got, data) {
			t.Fatalf("Get = %d bytes, %v; want %d bytes", len(got), ok, len(data))
		}
	}
	if _, ok := s.Get("k2", 0); ok {
		t.Fatal("hit for another key")
	}
	if _, ok := s.Get("k", 100); ok {
		t.Fatal("hit for an entry over the caller's limit")
	}
	if _, err := os.Stat(s.path("k")); err != nil {
		t.Fatal("an entry over the caller's limit was removed:", err)
	}
	if st := s.Stats(); st.Puts != 3 || st.Hits != 3 || st.Misses != 3 {
		t.Fatalf("stats %+v", st)
	}
}

// TestDamaged checks that every kind of damage is a miss that removes
// the file.
func TestDamaged(t *testing.T) {
	s := open(t, 0)
	if err := s.Put("key", []byte("some index bytes")); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(s.path("key"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":       {},
		"truncated":   good[:len(good)-1],
		"header only": good[:headerSize],
		"longer":      append(bytes.Clone(good), 0),
	}
	for i := range good {
		b := bytes.Clone(good)
		b[i] ^= 0x40
		cases["flip "+strconv.Itoa(i)] = b
	}
	for name, b := range cases {
		if err := os.WriteFile(s.path("key"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := s.Get("key", 0); ok {
			t.Errorf("%s: hit %q", name, got)
		}
		if _, err := os.Stat(s.path("key")); !os.IsNotExist(err) {
			t.Errorf("%s: damaged file kept (%v)", name, err)
		}
	}
}

// TestCollision checks that a file holding another key is a miss.
func TestCollision(t *testing.T) {
	s := open(t, 0)
	if err := s.Put("one", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(s.path("one"), s.path("two")); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get("two", 0); ok {
		t.Fatal("hit for a file of another key")
	}
}

func TestBudget(t *testing.T) {
	const entry = 10 << 10
	s := open(t, 10*entry)
	data := make([]byte, entry-100)
	old := time.Now().Add(-time.Hour)
	for i := range 9 {
		if err := s.Put(strconv.Itoa(i), data); err != nil {
			t.Fatal(err)
		}
		// Older first; entry 0 is then used, so entry 1 is the oldest.
		mt := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(s.path(strconv.Itoa(i)), mt, mt)
	}
	if _, ok := s.Get("0", 0); !ok {
		t.Fatal("miss under the budget")
	}
	for i := 9; i < 12; i++ {
		if err := s.Put(strconv.Itoa(i), data); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Size(); n > s.Budget() {
		t.Fatalf("size %d over the budget %d", n, s.Budget())
	}
	for _, k := range []string{"0", "11"} {
		if _, ok := s.Get(k, 0); !ok {
			t.Errorf("recently used %s was evicted", k)
		}
	}
	if _, ok := s.Get("1", 0); ok {
		t.Error("least recently used 1 was kept")
	}
	if err := s.Put("big", make([]byte, 6*entry)); err == nil {
		t.Error("an entry over half the budget was kept")
	}
}

func TestStaleTemp(t *testing.T) {
	s := open(t, 100)
	stale := filepath.Join(s.Dir(), tmpPrefix+"1")
	fresh := filepath.Join(s.Dir(), tmpPrefix+"2")
	mine := filepath.Join(s.Dir(), "other")
	for _, p := range []string{stale, fresh, mine} {
		os.WriteFile(p, make([]byte, 200), 0o600)
	}
	old := time.Now().Add(-2 * staleTemp)
	os.Chtimes(stale, old, old)
	s.Put("k", []byte("x"))
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale temporary file kept")
	}
	for _, p := range []string{fresh, mine} {
		if _, err := os.Stat(p); err != nil {
			t.Error("removed", p)
		}
	}
}

// value is the entry that writer w puts in round i: its length and
// content say who wrote it, so a torn read cannot pass for one.
func value(w, i int) []byte {
	return bytes.Repeat([]byte{byte(w), byte(i)}, 1000+w*3000+i)
}

func checkValue(t *testing.T, b []byte) {
	if len(b) < 2000 || len(b)%2 != 0 {
		t.Errorf("torn read: %d bytes", len(b))
		return
	}
	w, i := int(b[0]), int(b[1])
	if !bytes.Equal(b, value(w, i)) {
		t.Errorf("torn read: %d bytes starting %d %d", len(b), w, i)
	}
}

// TestConcurrent writes and reads one key from several goroutines.
func TestConcurrent(t *testing.T) {
	s := open(t, 0)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if err := s.Put("shared", value(w, i)); err != nil {
					t.Error(err)
				}
				if b, ok := s.Get("shared", 0); ok {
					checkValue(t, b)
				}
			}
		})
	}
	wg.Wait()
	if _, ok := s.Get("shared", 0); !ok {
		t.Fatal("no entry after the writes")
	}
}

// TestProcesses writes and reads one key from several processes (this
// test binary, run again) sharing a directory.
func TestProcesses(t *testing.T) {
	if dir := os.Getenv("PIPEFS_DISK_TEST_DIR"); dir != "" {
		s, err := Open(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := strconv.Atoi(os.Getenv("PIPEFS_DISK_TEST_WRITER"))
		for i := range 100 {
			if err := s.Put("shared", value(w, i)); err != nil {
				t.Error(err)
			}
			if b, ok := s.Get("shared", 0); ok {
				checkValue(t, b)
			} else {
				t.Error("miss after a write")
			}
		}
		return
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for w := range 3 {
		c := exec.Command(os.Args[0], "-test.run=^TestProcesses$", "-test.count=1")
		c.Env = append(os.Environ(), "PIPEFS_DISK_TEST_DIR="+dir, fmt.Sprintf("PIPEFS_DISK_TEST_WRITER=%d", w))
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(out.String())
			}
		})
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("writer: %v", err)
		}
	}
	s, _ := Open(dir, 0)
	b, ok := s.Get("shared", 0)
	if !ok {
		t.Fatal("no entry after the writers")
	}
	checkValue(t, b)
	if m, _ := filepath.Glob(filepath.Join(dir, tmpPrefix+"*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
