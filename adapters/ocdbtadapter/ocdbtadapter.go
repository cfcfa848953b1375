package ocdbtadapter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "ocdbt", OpenDir: openAdapter, Extensions: []string{".ocdbt"}})
	vfs.RegisterFormat(&vfs.Format{
		Name:     "ocdbt",
		Adapter:  "ocdbt:",
		Input:    vfs.KindDirectory,
		MatchDir: MatchDir,
	})
}

// openAdapter opens the ocdbt: sub-URL u over the directory base.
func openAdapter(ctx context.Context, base driver.Tree, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	t, err := open(ctx, base, u.Version(), env.Options, env)
	if err != nil {
		return driver.Location{}, err
	}
	return driver.Location{Tree: t, Path: u.Key()}, nil
}

// MatchDir reports whether the directory t holds an OCDBT database: a
// regular file named manifest.ocdbt.
func MatchDir(ctx context.Context, t driver.Tree) (bool, error) {
	info, err := t.Stat(ctx, manifestName)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return info.Mode().IsRegular(), nil
}

// Open opens the database in the directory base (a tree whose root holds
// manifest.ocdbt) at version, which is "" for the latest version, "v<N>"
// for generation N, or a UTC commit time YYYY-MM-DDThh:mm:ss[.fraction]Z
// for the latest version committed at or before that time. A version that
// does not exist is an error matching fs.ErrNotExist that names the
// versions that do. base is not owned: closing the Tree leaves it open.
// o may be nil.
func Open(ctx context.Context, base driver.Tree, version string, o *vfs.Options) (*Tree, error) {
	return open(ctx, base, version, o, nil)
}

// open is Open for the adapter whose Env is env, through which nodes are
// kept on disk; env may be nil.
func open(ctx context.Context, base driver.Tree, version string, o *vfs.Options, env *vfs.Env) (*Tree, error) {
	q, err := parseVersion(version)
	if err != nil {
		return nil, err
	}
	d, err := openDB(ctx, base, o, env)
	if err != nil {
		return nil, err
	}
	var g generation
	ok := true
	if version == "" {
		g = d.man.inline[len(d.man.inline)-1]
	} else {
		g, ok, err = d.find(ctx, q)
	}
	if err == nil && !ok {
		err = d.notFound(ctx, version, q)
	}
	if err != nil {
		d.close()
		return nil, err
	}
	return &Tree{db: d, ver: versionOf(g), gen: g}, nil
}

// Log returns every version of the database in the directory base, oldest
// first (generation 1 first). It reads the manifest and the whole version
// tree; more versions than o's Limits.MaxEntries is an error matching
// driver.ErrLimit. o may be nil.
func Log(ctx context.Context, base driver.Tree, o *vfs.Options) ([]Version, error) {
	d, err := openDB(ctx, base, o, nil)
	if err != nil {
		return nil, err
	}
	defer d.close()
	return d.log(ctx)
}

func (d *db) log(ctx context.Context) ([]Version, error) {
	var out []Version
	err := d.walkVersions(ctx, func(g generation) error {
		if len(out) >= d.lim.MaxEntries {
			return driver.Limitf("database has more than %d versions (Limits.MaxEntries)", d.lim.MaxEntries)
		}
		if n := len(out); n > 0 && g.gen <= out[n-1].Generation {
			return driver.Corruptf("version tree lists generation %d after %d", g.gen, out[n-1].Generation)
		}
		out = append(out, versionOf(g))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// notFound builds the error for a version that does not exist, naming the
// versions that do.
func (d *db) notFound(ctx context.Context, version string, q query) error {
	last := d.man.inline[len(d.man.inline)-1]
	first, err := d.first(ctx)
	if err != nil {
		return err
	}
	have := fmt.Sprintf("v%d..v%d", first.gen, last.gen)
	if first.gen == last.gen {
		have = fmt.Sprintf("v%d", first.gen)
	}
	if q.byTime {
		return fmt.Errorf("ocdbt: no version committed at or before %s: the database has %s, committed from %s to %s: %w",
			version, have, formatTime(nsTime(first.commitTime)), formatTime(nsTime(last.commitTime)), fs.ErrNotExist)
	}
	return fmt.Errorf("ocdbt: version %s does not exist: the database has %s: %w", version, have, fs.ErrNotExist)
}

// parseVersion parses a version: "", v<N>, or a UTC commit time.
func parseVersion(v string) (query, error) {
	if v == "" {
		return query{}, nil
	}
	if n, ok := strings.CutPrefix(v, "v"); ok {
		gen, err := strconv.ParseUint(n, 10, 64)
		if err != nil || n == "" || n[0] == '0' || n[0] == '+' {
			return query{}, fmt.Errorf("ocdbt: version %q must be v<N> with N >= 1: %w", v, fs.ErrInvalid)
		}
		return query{gen: gen}, nil
	}
	return parseTime(v)
}

// parseTime parses YYYY-MM-DDThh:mm:ss[.fraction]Z as nanoseconds since the
// epoch. Digits of the fraction past the ninth are dropped: a version
// committed at the truncated time is still at or before the given one.
func parseTime(v string) (query, error) {
	const layout = "2006-01-02T15:04:05"
	bad := fmt.Errorf("ocdbt: version %q must be v<N> or a UTC time YYYY-MM-DDThh:mm:ss[.fraction]Z: %w", v, fs.ErrInvalid)
	if len(v) < len(layout)+1 || v[len(v)-1] != 'Z' {
		return query{}, bad
	}
	t, err := time.Parse(layout, v[:len(layout)])
	if err != nil {
		return query{}, bad
	}
	frac := v[len(layout) : len(v)-1]
	var ns uint64
	if frac != "" {
		digits, ok := strings.CutPrefix(frac, ".")
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
			return query{}, bad
		}
		digits = (digits + "000000000")[:9]
		ns, _ = strconv.ParseUint(digits, 10, 64)
	}
	sec := t.Unix()
	switch {
	case sec < 0:
		return query{byTime: true, before: true}, nil
	case uint64(sec) > (math.MaxUint64-ns)/1e9:
		return query{byTime: true, time: math.MaxUint64}, nil
	}
	return query{byTime: true, time: uint64(sec)*1e9 + ns}, nil
}
