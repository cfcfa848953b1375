package browse

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// maxBases bounds the remote bases whose checks the cache remembers; past
// it, those not seen current within the interval are forgotten (they are
// asked again when next used).
const maxBases = 4 * maxLayers

// A base is the object a layer's pipeline reads, as it was when the layer
// was opened: the blob its root opened ("file:/d/a.zip" for
// "file:/d/a.zip|zip:" and "file:/d/a.zip|zip:b.tar|pipefs.tar:"), or a
// remote directory.
type base struct {
	url string // the pipeline's first sub-URL
	// rv checks the blob; nil for a remote directory, which nothing
	// names the version of: its layer is opened again once the interval
	// has passed (its tree remembers the objects it opened).
	rv driver.Revalidator
	// version is the blob's fingerprint at open (its size and time when
	// it names none): part of the ETags of the layer's files.
	version string
	local   bool // a local file: a stat, asked at every request
}

// baseState is what the cache knows of one remote base.
type baseState struct {
	mu      sync.Mutex // held while the store is asked
	version string     // the version last seen current, "" when none
	at      time.Time  // when it was
}

// baseOf returns the base of a layer just opened, and whether the layer is
// a local tree read live.
func baseOf(reg *vfs.Registry, l *layer) (*base, bool) {
	var (
		as interface{ As(any) bool }
		p  vfs.Pipeline
	)
	switch {
	case l.fsys != nil:
		as, p = l.fsys, l.fsys.Pipeline()
	case l.closer != nil:
		a, ok := l.closer.(interface{ As(any) bool })
		q, err := vfs.Parse(l.url)
		if !ok || err != nil {
			return nil, false
		}
		as, p = a, q
	default:
		return nil, false
	}
	root := reg.Root(p[0].Scheme)
	b := &base{url: p[0].String(), local: root != nil && root.Local}
	if as.As(&b.rv) {
		b.version = b.rv.Fingerprint()
		if blob, ok := b.rv.(driver.Blob); ok && b.version == "" {
			info := blob.Stat()
			b.version = fmt.Sprintf("size %d mtime %d", info.Size(), info.ModTime().UnixNano())
		}
		return b, false
	}
	if l.fsys == nil || len(p) != 1 {
		return nil, false // a store or dataset over a directory tree
	}
	var rt *remote.Tree
	if l.fsys.As(&rt) {
		return b, false
	}
	return nil, true
}

// noteOpened notes the base of l, which was just opened: a remote base's
// version is current as of now. A layer opened through a parent that
// reads a blob reads that blob too: it shares the parent's base, and
// with it its checks.
func (c *layerCache) noteOpened(l *layer) {
	if p := l.parent; p != nil && p.base != nil && p.base.rv != nil {
		l.base, l.live = p.base, false
	} else {
		l.base, l.live = baseOf(c.reg, l)
	}
	l.opened = c.now()
	if b := l.base; b != nil && b.rv != nil && !b.local {
		st := c.baseState(b.url)
		st.mu.Lock()
		st.version, st.at = b.version, l.opened
		st.mu.Unlock()
	}
}

// baseState returns the state of the remote base url, forgetting those
// that say nothing now when there are too many.
func (c *layerCache) baseState(url string) *baseState {
	c.basesMu.Lock()
	defer c.basesMu.Unlock()
	if st, ok := c.bases[url]; ok {
		return st
	}
	if c.bases == nil {
		c.bases = map[string]*baseState{}
	}
	if len(c.bases) >= maxBases {
		now := c.now()
		for u, st := range c.bases {
			if st.mu.TryLock() {
				if now.Sub(st.at) >= c.revalidate {
					delete(c.bases, u)
				}
				st.mu.Unlock()
			}
		}
	}
	st := new(baseState)
	c.bases[url] = st
	return st
}

// check returns nil when the kept layer l may answer a request: its base
// still has the version l read. A local file is asked at every call (a
// stat). A remote object is asked (one conditional request) at most once
// per c.revalidate, whichever of the layers reading it asks: within the
// interval, the version last seen current decides. A remote directory's
// layer expires after the interval. Any other answer, a failed request
// included, is returned: the layer is then opened again, and that open
// says what failed.
func (c *layerCache) check(ctx context.Context, l *layer) error {
	b := l.base
	if b == nil || c.revalidate < 0 {
		return nil
	}
	switch {
	case b.rv == nil:
		if c.now().Sub(l.opened) < c.revalidate {
			return nil
		}
		return fmt.Errorf("%s: %w", b.url, errExpired)
	case b.local:
		if err := b.rv.Revalidate(ctx); err != nil {
			return fmt.Errorf("%s: %w", b.url, err)
		}
		return nil
	}
	st := c.baseState(b.url)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.version != "" && c.now().Sub(st.at) < c.revalidate {
		if st.version == b.version {
			return nil
		}
		return fmt.Errorf("%s: %w: a later version was opened", b.url, driver.ErrModified)
	}
	err := b.rv.Revalidate(ctx)
	switch {
	case err == nil:
		st.version, st.at = b.version, c.now()
	case st.version == b.version:
		st.version = "" // not current now, nor known to be
	}
	return err
}

// remoteDir reports whether l is a remote directory (its base names no
// blob): its tree remembers the objects it opened, as they were when it
// first read them, until the layer is opened again.
func (l *layer) remoteDir() bool { return l.base != nil && l.base.rv == nil }

// pipelineOf returns the pipeline a layer shows, for messages.
func pipelineOf(l *layer) string {
	if l.fsys != nil {
		return l.fsys.Pipeline().String()
	}
	return l.url
}

// errExpired is what check returns for a remote directory's layer kept
// longer than the interval.
var errExpired = errors.New("kept longer than the revalidation interval")
