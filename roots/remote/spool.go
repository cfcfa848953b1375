package remote

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/pipefs/pipefs/cache"
)

// A spool holds the whole body of an object that a server sent in answer
// to a range (it ignores Range): in memory up to a bound, beyond it in a
// temporary file. Every later read of the object is served from it, so
// the object crosses the network once. It is reference-counted: the
// tree's memo of the object, each blob of it and each reader of it hold a
// reference, and the last release closes the file (see unlinked).
type spool struct {
	size int64
	mem  []byte   // the body, when it fitted in memory
	f    *os.File // the body, when it did not; closed on the last release
	// unlinked is set when f was removed at creation; otherwise the
	// last release removes it.
	unlinked bool

	mu   sync.Mutex
	refs int
}

// newSpool reads body, of size bytes (-1 when unknown), to its end into a
// spool, keeping up to memLimit bytes in memory and spilling to a
// temporary file past that. It returns the spool with one reference, and
// the bytes read (also on error). A failure removes what was spooled.
func newSpool(body io.Reader, size, memLimit int64) (s *spool, n int64, err error) {
	var buf bytes.Buffer
	if size >= 0 && size <= memLimit {
		buf.Grow(int(size) + bytes.MinRead) // one allocation, not doublings
	}
	n, err = io.Copy(&buf, io.LimitReader(body, memLimit+1))
	if err != nil {
		return nil, n, err
	}
	if n <= memLimit {
		return &spool{size: n, mem: buf.Bytes(), refs: 1}, n, nil
	}
	f, err := os.CreateTemp("", "pipefs-remote-*")
	if err != nil {
		return nil, n, fmt.Errorf("spooling a server's whole answer: %w", err)
	}
	// Unlinked at once where the system allows it (the open file keeps
	// its bytes), so that nothing is left behind by a process that exits
	// or dies with the pipeline open; elsewhere removed on the last
	// release.
	s = &spool{f: f, unlinked: os.Remove(f.Name()) == nil, refs: 1}
	if _, err = buf.WriteTo(f); err == nil {
		var m int64
		m, err = io.Copy(f, body)
		n += m
	}
	if err != nil {
		s.release()
		return nil, n, err
	}
	s.size = n
	return s, n, nil
}

// acquire adds a reference and reports whether the spool was still held
// (it may have been released for good while the caller looked it up).
func (s *spool) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refs == 0 {
		return false
	}
	s.refs++
	return true
}

// release drops a reference; the last one closes the file, and removes
// it unless it was unlinked at creation.
func (s *spool) release() {
	s.mu.Lock()
	s.refs--
	last := s.refs == 0
	s.mu.Unlock()
	if last && s.f != nil {
		s.f.Close()
		if !s.unlinked {
			os.Remove(s.f.Name())
		}
	}
}

// memBytes returns the bytes the spool holds in memory.
func (s *spool) memBytes() int64 { return int64(len(s.mem)) }

// ReadAt reads the spooled body.
func (s *spool) ReadAt(p []byte, off int64) (int, error) {
	if s.f != nil {
		return s.f.ReadAt(p, off)
	}
	if off >= int64(len(s.mem)) {
		return 0, io.EOF
	}
	n := copy(p, s.mem[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// reader returns a reader of the n bytes at off that holds a reference
// until it is closed, or nil when the spool was released.
func (s *spool) reader(off, n int64) *spoolReader {
	if !s.acquire() {
		return nil
	}
	return &spoolReader{SectionReader: io.NewSectionReader(s, off, n), s: s}
}

// spoolReader reads a range of a spool. It is a cache.LocalReader: the
// cache counts no request and no bytes fetched for it.
type spoolReader struct {
	*io.SectionReader
	s    *spool
	once sync.Once
}

// Local marks the reader as serving bytes already fetched.
func (r *spoolReader) Local() {}

// Close releases the reader's reference to the spool.
func (r *spoolReader) Close() error {
	r.once.Do(r.s.release)
	return nil
}

var _ cache.LocalReader = (*spoolReader)(nil)
