package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	"github.com/pipefs/pipefs/vfs"
)

// Errno returns the errno that the kernel is given for err, an error of
// a vfs.FS or vfs.File: 0 for nil, EINTR for a cancelled or expired
// context, EIO for corrupt data (vfs.ErrCorrupt, which matches
// fs.ErrInvalid too), ESTALE for a remote object that changed
// (vfs.ErrModified), EINVAL for a name that is no symbolic link
// (vfs.ErrNotLink), ENOENT, EACCES, EISDIR and ENOTDIR for their
// sentinels, EOPNOTSUPP for errors.ErrUnsupported, the errno itself when
// the cause is a syscall.Errno, and EIO for anything else, limits
// included.
func Errno(err error) syscall.Errno {
	var errno syscall.Errno
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return syscall.EINTR
	case errors.Is(err, vfs.ErrCorrupt):
		return syscall.EIO
	case errors.Is(err, vfs.ErrModified):
		return syscall.ESTALE
	case errors.Is(err, vfs.ErrNotLink):
		return syscall.EINVAL
	case errors.Is(err, fs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, fs.ErrPermission), errors.Is(err, vfs.ErrUnsafePath):
		return syscall.EACCES
	case errors.Is(err, vfs.ErrIsDir):
		return syscall.EISDIR
	case errors.Is(err, vfs.ErrNotDir):
		return syscall.ENOTDIR
	case errors.Is(err, errors.ErrUnsupported):
		return syscall.EOPNOTSUPP
	case errors.As(err, &errno) && errno != 0:
		return errno
	}
	return syscall.EIO
}

// maxLogged bounds the failures a mount remembers having logged: past it,
// one line says that further ones are not logged, so that a client that
// walks a broken tree over and over cannot grow the set without end.
const maxLogged = 4096

// fail returns the errno of err, the failure of op on name, and reports
// it to Options.Log the first time op fails on name. A cancellation is
// not reported: it is the caller's, not the tree's.
func (t *tree) fail(op, name string, err error) syscall.Errno {
	errno := Errno(err)
	if t.log == nil || errno == syscall.EINTR {
		return errno
	}
	key := op + "\x00" + name
	t.mu.Lock()
	_, seen := t.logged[key]
	full := len(t.logged) >= maxLogged
	if !seen && !full {
		t.logged[key] = struct{}{}
	}
	last := full && !t.loggedFull
	if last {
		t.loggedFull = true
	}
	t.mu.Unlock()
	switch {
	case !seen && !full:
		t.log(t.fsys.URL(name), err)
	case last:
		t.log(t.fsys.Pipeline().String(), errors.New("too many failures: further ones are not logged"))
	}
	return errno
}
