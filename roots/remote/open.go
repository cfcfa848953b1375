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
			t.run(ctx, name, c)
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

// run makes c, the first read of name, and ends it: c.done is closed and
// name no longer opening, even when the backend panics, so that neither
// the opens waiting for c nor later opens of name wait forever. The
// waiters then get an error, and the panic goes on.
func (t *Tree) run(ctx context.Context, name string, c *openCall) {
	finished := false
	defer func() {
		if !finished {
			c.h, c.err = nil, fmt.Errorf("opening %s: the backend panicked", t.b.Key(name))
		}
		t.mu.Lock()
		delete(t.opening, name)
		t.mu.Unlock()
		close(c.done)
	}()
	c.h, c.err = t.openFirst(ctx, name)
	finished = true
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
	n := int64(len(h.tail))
	if h.spool != nil {
		n += h.spool.memBytes()
	}
	if t.headBytes+n > maxHeadBytes || len(t.heads) >= 4096 {
		// A bound; heads are cheap to learn again.
		t.dropHeads()
	}
	t.heads[name] = h
	t.headBytes += n
	t.mu.Unlock()
	return h, nil
}

// readHead reads the answer to the first read of name: the last want
// bytes, or the whole object from a server that ignored Range (spooled, see
// readWhole), or a body of unknown size.
func (t *Tree) readHead(name string, resp *Response, want int64) (*head, error) {
	key := t.b.Key(name)
	if resp.Size < 0 && resp.Start != 0 {
		return nil, fmt.Errorf("%s: the server gave no size", key)
	}
	if resp.Size >= 0 && resp.Start > resp.Size {
		return nil, fmt.Errorf("%s: the answer starts at %d, past the size %d", key, resp.Start, resp.Size)
	}
	if resp.Start == 0 && (resp.Size < 0 || resp.Size > want) {
		return t.readWhole(name, resp, want)
	}
	var buf []byte
	dropped := int64(0) // bytes read and not kept
	chunk := make([]byte, 32<<10)
	for {
		m, err := resp.Body.Read(chunk)
		buf = append(buf, chunk[:m]...)
		if int64(len(buf)) > 2*want {
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
			return nil, bodyErr(key, err)
		}
	}
	got := dropped + int64(len(buf))
	t.stats.AddBytes(got)
	size := resp.Size
	if resp.Start+got < size {
		return nil, Retryable(fmt.Errorf("reading %s: short body: %d of %d bytes: %w", key, got, size-resp.Start, io.ErrUnexpectedEOF), 0)
	}
	if int64(len(buf)) > want {
		buf = buf[int64(len(buf))-want:]
	}
	// The tail is kept with the head and pinned to every blob of the
	// object: it gets an array of its own, so that it does not keep alive
	// a larger buffer it was read into, memory that no bound counts.
	tail := bytes.Clone(buf)
	return &head{size: size, version: resp.Version, mod: resp.ModTime, tailOff: size - int64(len(tail)), tail: tail}, nil
}

// readWhole reads the answer of a server that sent the whole object for
// the suffix asked for (it ignores Range, or gave no size) into a spool,
// which serves every later read of the object: the object is fetched once.
// Up to a quarter of the cache's budget (at most 64 MiB) is kept in memory,
// the rest in a temporary file. The answer is reported (see
// Tree.IgnoredRange).
func (t *Tree) readWhole(name string, resp *Response, want int64) (*head, error) {
	key := t.b.Key(name)
	memLimit := min(maxWhole, t.c.Config().Budget/4)
	if resp.Size > memLimit {
		memLimit = 0 // straight to the file
	}
	if resp.Size >= 0 {
		t.noteIgnoredRange(key, resp.Size)
	}
	sp, got, err := newSpool(resp.Body, resp.Size, memLimit)
	t.stats.AddBytes(got)
	if err != nil {
		return nil, bodyErr(key, err)
	}
	size := resp.Size
	switch {
	case size < 0:
		size = got // the whole object, read to its end
		t.noteIgnoredRange(key, size)
	case got < size:
		sp.release()
		return nil, Retryable(fmt.Errorf("reading %s: short body: %d of %d bytes: %w", key, got, size, io.ErrUnexpectedEOF), 0)
	case got > size:
		sp.release()
		return nil, fmt.Errorf("%s: the body is longer than the %d-byte object: %w", key, size, driver.ErrCorrupt)
	}
	tailLen := min(size, want)
	tail := make([]byte, tailLen)
	if _, err := sp.ReadAt(tail, size-tailLen); err != nil && err != io.EOF {
		sp.release()
		return nil, fmt.Errorf("reading the spooled %s: %w", key, err)
	}
	return &head{size: size, version: resp.Version, mod: resp.ModTime, tailOff: size - tailLen, tail: tail, spool: sp}, nil
}

// bodyErr wraps an error reading the body of key, marked retryable when a
// new request may do better.
func bodyErr(key string, err error) error {
	if err == io.ErrUnexpectedEOF || IsRetryable(err) {
		return Retryable(fmt.Errorf("reading %s: %w", key, err), 0)
	}
	return fmt.Errorf("reading %s: %w", key, err)
}
