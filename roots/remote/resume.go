package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"
)

// source reads one version of one object through the backend.
type source struct {
	t       *Tree
	name    string
	version string
	size    int64

	mu     sync.Mutex
	parked *resumer // a whole-object body stopped where a range ended
	spool  *spool   // the whole object, when the server sent it at open
}

// ReadRange returns the n bytes at off, resuming a body that is cut short.
// When the server sent the whole object for an earlier range (it ignores
// Range), that body was kept where the range ended: a range at or after
// that point continues it instead of streaming the object from its start
// again, so a sequential read costs the object once, not once per block.
func (s *source) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	s.mu.Lock()
	p, sp := s.parked, s.spool
	s.parked = nil
	s.mu.Unlock()
	if sp != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if off < 0 || n < 0 || off+n > sp.size {
			return nil, fmt.Errorf("%s: range %d+%d past the %d-byte object", s.t.b.Key(s.name), off, n, sp.size)
		}
		if r := sp.reader(off, n); r != nil {
			return r, nil
		}
	}
	if p != nil {
		if p.off <= off && off-p.off <= maxParkedSkip {
			p.ctx, p.end, p.parked = ctx, off, true
			m, err := io.Copy(io.Discard, p)
			s.t.stats.AddBytes(m)
			if err == nil {
				p.end = off + n
				return p, nil
			}
		}
		p.body.Close()
	}
	r := &resumer{ctx: ctx, s: s, off: off, end: off + n}
	if err := r.reopen(true); err != nil {
		return nil, err
	}
	return r, nil
}

// maxParkedSkip bounds how far ahead of a kept body a range may start and
// still continue it rather than ask again.
const maxParkedSkip = 64 << 20

// close releases a kept body and the spool.
func (s *source) close() {
	s.mu.Lock()
	p, sp := s.parked, s.spool
	s.parked, s.spool = nil, nil
	s.mu.Unlock()
	if p != nil {
		p.body.Close()
	}
	if sp != nil {
		sp.release()
	}
}

// resumer reads [off, end) of an object and, when a body breaks, asks for
// the rest with a new conditional request. The attempts of all its
// requests share the Retry bound.
type resumer struct {
	ctx      context.Context
	s        *source
	off, end int64
	body     io.ReadCloser
	attempts int
	whole    bool // the body goes on past end: the server ignored the range
	parked   bool // the body was kept from an earlier range
}

// reopen asks for the rest of the range. The cache counts the first
// request of a range; the tree counts the others.
func (r *resumer) reopen(first bool) error {
	if r.body != nil {
		r.body.Close()
		r.body = nil
	}
	t := r.s.t
	return t.o.Retry.do(r.ctx, &r.attempts, func() error {
		if !first {
			t.stats.AddRequest()
		}
		first = false
		resp, err := t.b.Get(r.ctx, r.s.name, r.off, r.end-r.off, r.s.version)
		if errors.Is(err, fs.ErrNotExist) {
			// Deleted since open: a change like any other.
			return fmt.Errorf("%w: %w", err, driver.ErrModified)
		}
		if err != nil {
			return err
		}
		key := t.b.Key(r.s.name)
		if resp.Size >= 0 && resp.Size != r.s.size {
			resp.Body.Close()
			return fmt.Errorf("%s: size changed from %d to %d: %w", key, r.s.size, resp.Size, driver.ErrModified)
		}
		if r.s.version != "" && resp.Version != r.s.version {
			resp.Body.Close()
			return fmt.Errorf("%s: version changed from %q to %q: %w", key, r.s.version, resp.Version, driver.ErrModified)
		}
		if resp.Start > r.off {
			resp.Body.Close()
			return fmt.Errorf("%s: asked for bytes from %d, got from %d: %w", key, r.off, resp.Start, driver.ErrCorrupt)
		}
		r.whole = resp.Start < r.off || resp.Length < 0 || resp.Length > r.end-r.off
		if r.whole && resp.Start == 0 && resp.Size >= 0 {
			t.noteIgnoredRange(key, resp.Size)
		}
		if skip := r.off - resp.Start; skip > 0 {
			// The server ignored the range: stream up to what is needed.
			m, err := io.CopyN(io.Discard, resp.Body, skip)
			t.stats.AddBytes(m)
			if err != nil {
				resp.Body.Close()
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return Retryable(fmt.Errorf("reading %s: %w", key, err), 0)
			}
		}
		r.body = resp.Body
		return nil
	})
}

func (r *resumer) Read(p []byte) (int, error) {
	if r.off >= r.end {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.end-r.off)]
	for {
		n, err := r.body.Read(p)
		r.off += int64(n)
		if n > 0 || err == nil {
			if r.off >= r.end {
				return n, io.EOF
			}
			return n, nil
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // the body ended before the range did
		}
		if r.parked {
			// A kept body may have died with the request that opened
			// it: ask again, as if it had never been kept.
			r.parked = false
			if err := r.reopen(false); err != nil {
				return 0, err
			}
			continue
		}
		if !IsRetryable(err) || r.attempts >= r.s.t.o.Retry.WithDefaults().MaxAttempts {
			return 0, fmt.Errorf("reading %s at %d: %w", r.s.t.b.Key(r.s.name), r.off, err)
		}
		if err := r.reopen(false); err != nil {
			return 0, err
		}
	}
}

// Close closes the body, or keeps it for the next range when it is a
// whole-object body read to the end of this range.
func (r *resumer) Close() error {
	if r.body == nil {
		return nil
	}
	if r.whole && r.off == r.end && r.end < r.s.size {
		r.ctx = nil
		r.s.mu.Lock()
		old := r.s.parked
		r.s.parked = r
		r.s.mu.Unlock()
		if old != nil {
			old.body.Close()
		}
		return nil
	}
	return r.body.Close()
}
