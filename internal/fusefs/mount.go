package fusefs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/pipefs/pipefs/vfs"
)

// Options configure a mount. The zero value, or nil, is a mount owned by
// the current user that logs nothing.
type Options struct {
	// Log, when not nil, is called once for each operation that fails on
	// a name (see Errno), with the canonical pipeline of the name and the
	// error, which names the sub-URL that failed. It may be called from
	// several goroutines at once.
	Log func(url string, err error)

	// UID and GID own every file; 0 means the current user's and group's.
	UID, GID uint32
}

// cacheTimeout is how long the kernel may keep entries, attributes and
// failed lookups: the tree does not change while it is mounted, so as
// long as it likes.
const cacheTimeout = 365 * 24 * time.Hour

// A tree is what the nodes of one mount share.
type tree struct {
	fsys     *vfs.FS
	log      func(url string, err error)
	uid, gid uint32

	mu         sync.Mutex
	inos       map[uint64]struct{} // the inode numbers given out
	logged     map[string]struct{} // the failures logged, by op and name
	loggedFull bool                // the line saying no more are logged was written
}

// NewRoot returns the root node of a read-only file system that serves
// fsys, for callers that mount it themselves with go-fuse (fs.Mount).
// The root is described by fsys.Stat("."), which may do I/O with the
// FS's context. Mount calls it.
func NewRoot(fsys *vfs.FS, o *Options) (fs.InodeEmbedder, error) {
	if o == nil {
		o = &Options{}
	}
	t := &tree{
		fsys:   fsys,
		log:    o.Log,
		uid:    o.UID,
		gid:    o.GID,
		inos:   map[uint64]struct{}{1: {}},
		logged: map[string]struct{}{},
	}
	if t.uid == 0 {
		t.uid = uint32(os.Getuid())
	}
	if t.gid == 0 {
		t.gid = uint32(os.Getgid())
	}
	info, err := fsys.Stat(".")
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &os.PathError{Op: "mount", Path: fsys.Pipeline().String(), Err: vfs.ErrNotDir}
	}
	return t.newNode(".", info, 1, 1), nil
}

// A Server serves one mount.
type Server struct {
	srv    *fuse.Server
	dir    string
	served chan struct{} // closed when the kernel has ended the connection
}

// Mount mounts fsys read-only on the directory dir, which must exist, and
// serves it in the background until it is unmounted, by Unmount or from
// outside (fusermount3 -u). The FS's context is used for all its I/O,
// including that of files still open after Unmount detached a busy mount,
// so it should outlive the mount; the caller closes fsys once Wait has
// returned.
func Mount(dir string, fsys *vfs.FS, o *Options) (*Server, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("mount point: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("mount point %s: %w", dir, vfs.ErrNotDir)
	}
	root, err := NewRoot(fsys, o)
	if err != nil {
		return nil, err
	}
	timeout := cacheTimeout
	srv, err := fs.Mount(dir, root, &fs.Options{
		EntryTimeout:    &timeout,
		AttrTimeout:     &timeout,
		NegativeTimeout: &timeout,
		MountOptions: fuse.MountOptions{
			FsName: fsys.Pipeline().String(),
			Name:   "pipefs",
			// The kernel refuses changes itself; the nodes refuse
			// them too.
			Options: []string{"ro"},
			// No extended attributes: ls -l would ask for some of
			// every file.
			DisableXAttrs:            true,
			EnableSymlinkCaching:     true,
			ExplicitDataCacheControl: true,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("mount %s on %s: %w", fsys.Pipeline(), dir, err)
	}
	s := &Server{srv: srv, dir: dir, served: make(chan struct{})}
	go func() {
		srv.Wait()
		close(s.served)
	}()
	return s, nil
}

// Dir returns the mount point.
func (s *Server) Dir() string { return s.dir }

// Done returns a channel that is closed when the file system is no longer
// mounted and no longer served: after Unmount, or an unmount from outside.
func (s *Server) Done() <-chan struct{} { return s.served }

// Wait waits until Done is closed.
func (s *Server) Wait() { <-s.served }

// unmountTries and unmountPause bound how long Unmount waits for a busy
// mount to become free (each try is go-fuse's, which retries for about
// 0.3 s itself) before it detaches it.
const (
	unmountTries = 3
	unmountPause = 200 * time.Millisecond
)

// Unmount unmounts the file system. When it is busy, because a process
// has a file open in it or its working directory there, Unmount retries
// for about a second, then detaches it lazily (umount -l): the mount
// point is free at once, and the files still open are served until they
// are closed, when Done is closed. detached reports that it did so. A
// mount is never left in place without a server.
func (s *Server) Unmount() (detached bool, err error) {
	for try := 0; ; try++ {
		select {
		case <-s.served:
			return false, nil // unmounted from outside
		default:
		}
		if err = s.srv.Unmount(); err == nil {
			s.Wait()
			return false, nil
		}
		if try+1 == unmountTries {
			break
		}
		time.Sleep(unmountPause)
	}
	if derr := detach(s.dir); derr != nil {
		return false, fmt.Errorf("unmount %s: %w; detaching it failed too: %w", s.dir, err, derr)
	}
	return true, nil
}

// detach unmounts dir lazily: with umount2(MNT_DETACH) when the process
// may, else with fusermount3 -u -z (or fusermount, the FUSE 2 name).
func detach(dir string) error {
	err := syscall.Unmount(dir, syscall.MNT_DETACH)
	if err == nil || !errors.Is(err, syscall.EPERM) {
		return err
	}
	bin, lerr := exec.LookPath("fusermount3")
	if lerr != nil {
		if bin, lerr = exec.LookPath("fusermount"); lerr != nil {
			return fmt.Errorf("%w, and no fusermount3: %w", err, lerr)
		}
	}
	if out, err := exec.Command(bin, "-u", "-z", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("%s -u -z: %w: %s", bin, err, out)
	}
	return nil
}
