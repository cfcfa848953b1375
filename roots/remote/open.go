package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/pipefs/pipefs/vfs/driver"
)

// open reads the suffix of name, learning its size and version.
func (t *Tree) open(ctx context.Context, name string) (*head, error) {
	for {
		t.mu.Lock()
		h, miss := t.heads[name], t.missing[name]
		if h != nil || miss != nil {
			t.mu.Unlock()
			return h, miss
		}
		c := t.opening[name]
		if c == nil {
			// This call opens name; concurrent opens of it wait for it.
			c = &openCall{done: make(chan struct{})}
			if t.opening == nil {
				t.opening = map[string]*openCall{}
			}
			t.opening[name] = c
			t.mu.Unlock()
			c.h, c.err = t.openFirst(ctx, name)
			t.mu.Lock()
			delete(t.opening, name)
			t.mu.Unlock()
			close(c.done)
			return c.h, c.err
		}
		t.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if c.err == nil || !isContextErr(c.err) || ctx.Err() != nil {
			return c.h, c.err
		}
		// The first caller gave up, not this one: open again.
	}
}

// An openCall is one first read of an object, shared by concurrent opens.
type openCall struct {
	done chan struct{}
	h    *head
	err  error
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// openFirst reads the suffix of name: the one request that opens it.
func (t *Tree) openFirst(ctx context.Context, name string) (*head, error) {
	var h *head
	want := max(t.suffix.Load(), t.hints.get(t.b.Key(name)))
	err := t.o.Retry.Do(ctx, func() error {
		t.stats.AddRequest()
		resp, err := t.b.Get(ctx, name, -want, 0, "")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		h, err = t.readHead(name, resp, want)
		return err
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			t.mu.Lock()
			if t.missing == nil || len(t.missing) >= 4096 {
				t.missing = map[string]error{} // a bound; misses are cheap to learn again
			}
			t.missing[name] = err
			t.mu.Unlock()
		}
		return nil, err
	}
	t.mu.Lock()
	n := int64(len(h.tail) + len(h.whole))
	if t.headBytes+n > maxHeadBytes || len(t.heads) >= 4096 {
		// A bound; heads are cheap to learn again.
		clear(t.heads)
		t.headBytes = 0
	}
	t.heads[name] = h
	t.headBytes += n
	t.mu.Unlock()
	return h, nil
}

// readHead reads the answer to the first read of name: the last want
// bytes, or the whole object from a server that ignored Range (kept whole
// when it is small enough for the cache), or a body of unknown size.
func (t *Tree) readHead(name string, resp *Response, want int64) (*head, error) {
	key := t.b.Key(name)
	if resp.Size < 0 && resp.Start != 0 {
		return nil, fmt.Errorf("%s: the server gave no size", key)
	}
	if resp.Size >= 0 && resp.Start > resp.Size {
		return nil, fmt.Errorf("%s: the answer starts at %d, past the size %d", key, resp.Start, resp.Size)
	}
	// Keep at most limit bytes; past it, only the last want.
	limit := want
	if resp.Start == 0 {
		limit = max(want, min(maxWhole, t.c.Config().Budget/4))
	}
	var buf []byte
	dropped := int64(0) // bytes read and not kept
	chunk := make([]byte, 32<<10)
	for {
		m, err := resp.Body.Read(chunk)
		buf = append(buf, chunk[:m]...)
		if int64(len(buf)) > 2*limit {
			cut := int64(len(buf)) - want
			dropped += cut
			buf = append(buf[:0:0], buf[cut:]...)
		}
		if resp.Size >= 0 && resp.Start+dropped+int64(len(buf)) > resp.Size {
			return nil, fmt.Errorf("%s: the body is longer than the %d-byte object: %w", key, resp.Size, driver.ErrCorrupt)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.stats.AddBytes(dropped + int64(len(buf)))
			if err == io.ErrUnexpectedEOF || IsRetryable(err) {
				return nil, Retryable(fmt.Errorf("reading %s: %w", key, err), 0)
			}
			return nil, fmt.Errorf("reading %s: %w", key, err)
		}
	}
	got := dropped + int64(len(buf))
	t.stats.AddBytes(got)
	size := resp.Size
	if size < 0 {
		size = got // the whole object, read to its end
	} else if resp.Start+got < size {
		return nil, Retryable(fmt.Errorf("reading %s: short body: %d of %d bytes: %w", key, got, size-resp.Start, io.ErrUnexpectedEOF), 0)
	}
	if int64(len(buf)) > limit {
		buf = buf[int64(len(buf))-want:]
	}
	h := &head{size: size, version: resp.Version, mod: resp.ModTime}
	start := size - int64(len(buf))
	tailLen := min(int64(len(buf)), want)
	h.tailOff = size - tailLen
	// The tail is kept with the head and pinned to every blob of the
	// object: it gets an array of its own, so that it does not keep alive
	// the whole body (which the cache copies) or a larger buffer it was
	// read into, memory that no bound counts.
	h.tail = bytes.Clone(buf[int64(len(buf))-tailLen:])
	if start == 0 && tailLen < int64(len(buf)) {
		h.whole = buf // the tail too, so that every block is whole
	}
	return h, nil
}
