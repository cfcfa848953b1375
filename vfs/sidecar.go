package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs/driver"
)

// SidecarMode says whether the indexes drivers derive (Env.DiskIndex) are
// shared through the store that holds the archive, as sidecar objects
// beside its object.
//
// An index derived from object NAME of a bucket is kept as the object
// NAME.pipefs/HASH.pfi, where HASH is the SHA-256 of what the index is of:
// the driver's kind and the input's Env.Key, which holds the canonical
// pipeline and the version (ETag, generation) of the object. An object
// replaced by a new version is thus never read with the index of the old
// one; the old sidecars stay until removed (delete NAME.pipefs/ with the
// object). The bytes are those of a disk.Store entry (disk.Encode): the
// key itself and a checksum, checked from the header on before the rest
// is read (disk.ReadEntry), and the driver then decodes the index as
// untrusted input, as from the disk. Sidecars are objects like any other:
// a listing of the bucket shows NAME.pipefs/ as a directory.
//
// Sidecars need a first sub-URL whose blob can keep them: the s3, s3+http,
// s3+https and gs roots (driver.Sidecars). An object under 1 MiB keeps
// none, since reading it costs about what reading a sidecar would, and
// neither does a zip's central directory, one read of the archive's tail.
// Only the first blob of a pipeline keeps sidecars: the indexes of
// archives nested in it sit beside it too, under their own keys. A
// tar.gz has three: the gzip stream's head (its header and size), its
// checkpoints, and the tar member table; a listing reads the head and the
// table, and the checkpoints are read when a member is.
//
// A machine that finds no copy on its own disk (Options.Disk) reads the
// sidecar, one request bounded by the context of the call that needs it,
// and keeps it on disk; a sidecar that is missing, that the process may
// not read, or that fails its checks is a miss. With SidecarWrite, an
// index a process derives is written as a sidecar (one request, when it
// is complete or at Close) as well as to the disk, within the context of
// the call in which it became complete or of the FS or File being closed:
// cancelling that context stops the write. A write that fails (no
// permission, say) is logged with Options.Logger, once per object and
// Cache (Env.Warn), and the process goes on without it. Sidecars are written by
// processes that derived an index, not by ones that loaded it, so an index
// a machine kept on its disk before sidecars were on is not written.
type SidecarMode int

const (
	// SidecarOff keeps indexes on the machine only (Options.Disk).
	SidecarOff SidecarMode = iota
	// SidecarRead reads the sidecars that other processes wrote, but
	// writes none: for readers of a bucket they may not write to.
	SidecarRead
	// SidecarWrite reads sidecars, and writes the indexes the process
	// derives as sidecars.
	SidecarWrite
)

// String returns "off", "read" or "write".
func (m SidecarMode) String() string {
	switch m {
	case SidecarOff:
		return "off"
	case SidecarRead:
		return "read"
	case SidecarWrite:
		return "write"
	}
	return fmt.Sprintf("SidecarMode(%d)", int(m))
}

// ParseSidecarMode returns the mode that s names: "off", "read" or
// "write" (case and surrounding spaces ignored; "" is off).
func ParseSidecarMode(s string) (SidecarMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "off":
		return SidecarOff, nil
	case "read":
		return SidecarRead, nil
	case "write":
		return SidecarWrite, nil
	}
	return 0, fmt.Errorf("sidecar mode %q: want off, read or write: %w", s, fs.ErrInvalid)
}

// SidecarSuffix is what is appended to the name of an object to name its
// sidecars: NAME.pipefs/HASH.pfi.
const SidecarSuffix = ".pipefs/"

// sidecarMinSize is the size under which an object keeps no sidecars:
// reading the object whole costs about what reading a sidecar would.
const sidecarMinSize = 1 << 20

// sidecarTimeout bounds one write of a sidecar, with a further second per
// MiB written, within the context of what writes it (the call in which the
// index completed, or the Close of the FS or File).
const sidecarTimeout = time.Minute

// sidecar is where the indexes of one pipeline's first blob are shared.
type sidecar struct {
	b     driver.Sidecars
	write bool
	url   string // the first sub-URL, for messages
	env   *Env   // where failures are warned about
}

// sidecar returns where env's indexes are shared, nil when nowhere.
func (env *Env) sidecar() *sidecar {
	if env.side == nil || env.Options == nil || env.Options.Sidecar == SidecarOff {
		return nil
	}
	return &sidecar{b: env.side, write: env.Options.Sidecar == SidecarWrite, url: env.sideURL, env: env}
}

// load reads the index of key, checks it, and returns its data. A
// sidecar that is not there, or that this process may not read, is a
// miss; one over limit (0 means disk.MaxEntry), or damaged, is refused
// from its header, before its data is read.
func (s *sidecar) load(ctx context.Context, key string, limit int64) ([]byte, bool) {
	body, size, err := s.b.OpenSidecar(ctx, SidecarSuffix+disk.Name(key))
	if err != nil {
		// A store answers a reader who may not list the bucket 403 for
		// an object that does not exist.
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) && ctx.Err() == nil {
			s.warn("read", err)
		}
		return nil, false
	}
	defer body.Close()
	data, err := disk.ReadEntry(body, size, key, limit)
	if err != nil {
		// Damaged, of another key or format version, or too large: a
		// miss. A process that derives the index again writes it anew.
		return nil, false
	}
	return data, true
}

// store writes data as the index of key, in SidecarWrite mode, within
// ctx: a write that ctx's cancellation stops is no failure to report. An
// index that a disk.Store would not keep (over disk.MaxEntry) is not
// written.
func (s *sidecar) store(ctx context.Context, key string, data []byte) {
	if !s.write || int64(len(data)) > disk.MaxEntry || ctx.Err() != nil {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, sidecarTimeout+time.Duration(len(data)>>20)*time.Second)
	defer cancel()
	if err := s.b.WriteSidecar(wctx, SidecarSuffix+disk.Name(key), disk.Encode(key, data)); err != nil && ctx.Err() == nil {
		s.warn("write", err)
	}
}

// sidecarWarning keys the warnings about the sidecars of one object.
type sidecarWarning struct{ op, url string }

// warn logs, once per object and Cache, that its sidecar could not be
// read or written.
func (s *sidecar) warn(op string, err error) {
	hint := "going on without it"
	if op == "write" {
		hint = "going on without it; where this process may not write to the bucket, read sidecars only (SidecarRead, pipefs --sidecar=read)"
	}
	s.env.Warn(sidecarWarning{op, s.url}, "cannot "+op+" the sidecar index of "+s.url+"; "+hint, "err", err)
}
