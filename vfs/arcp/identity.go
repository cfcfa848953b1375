package arcp

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"

	"github.com/pipefs/pipefs/vfs"
)

// A Member is a location inside a container, split out of the pipeline
// that names it.
type Member struct {
	// Container names the container as a whole: the file an archive
	// adapter reads ("file:/d/a.zip" for "file:/d/a.zip|zip:x"), or the
	// directory of a store. A versioned store is a different archive
	// for each version, so for "…|ocdbt://v3/k" it is "…|ocdbt://v3".
	Container vfs.Pipeline
	// Root names the container's root directory ("file:/d/a.zip|zip:").
	Root vfs.Pipeline
	// Name is the member's io/fs name inside Root, "." for the root.
	Name string
}

// isContainer reports whether the scheme of an adapter makes a directory
// out of its base, with a path inside it (zip, pipefs.tar, ocdbt,
// icechunk).
func isContainer(scheme string) (ok, fileBase bool) {
	base, yields, known := vfs.SchemeKinds(scheme)
	return known && yields == vfs.KindAny, base == vfs.KindFile
}

// Split splits the pipeline of a member into its container and its name
// there. The container is that of the innermost archive adapter (zip:,
// pipefs.tar:, ocdbt:, icechunk:), so a member of a nested zip belongs to
// the inner zip: "file:/d/a.zip|zip:in.zip|zip:x" is x in the container
// "file:/d/a.zip|zip:in.zip". A pipeline with no archive adapter is an
// error matching fs.ErrInvalid, and so is one whose adapter after the
// archive (gzip: on a member) makes it no member.
func Split(p vfs.Pipeline) (Member, error) {
	for i := len(p) - 1; i > 0; i-- {
		ok, _ := isContainer(p[i].Scheme)
		if !ok {
			continue
		}
		if i != len(p)-1 {
			break
		}
		root := p[i]
		root.Path = ""
		m := Member{Container: p[:i:i], Root: p[:i].Append(root), Name: p[i].Key()}
		if root.HasAuthority {
			m.Container = m.Root
		}
		if !fs.ValidPath(m.Name) {
			return Member{}, invalidf("%s: the path %q names no member (it holds an empty, \".\" or \"..\" segment)", p, p[i].Path)
		}
		return m, nil
	}
	return Member{}, invalidf("%s names no member of a container: end it with an archive sub-URL such as zip: or pipefs.tar: (\"file:/d/a.zip|zip:dir/f.txt\")", p)
}

// An Identity holds the arcp authorities of one container.
type Identity struct {
	Container vfs.Pipeline // the container as a whole, see Member
	Root      vfs.Pipeline // its root directory

	// UUID is the location-based authority: "uuid," and the UUID v5,
	// in the URL namespace, of the canonical text of Container.
	UUID string
	// NI is the hash-based authority: "ni,sha-256;" and the base64url
	// SHA-256 of the container's bytes. It is "" for a container that is
	// a directory, or when Options.NoHash left it out.
	NI string
	// Name is the name-based authority: "name," and the base name of
	// the container's file or directory ("name,a.zip"), escaped as a
	// reg-name. It is "" when the container has no name (memory:).
	Name string
}

// Authorities returns the authorities of id that are set, in the order
// UUID, NI, Name.
func (id *Identity) Authorities() []string {
	var as []string
	for _, a := range []string{id.UUID, id.NI, id.Name} {
		if a != "" {
			as = append(as, a)
		}
	}
	return as
}

// URIs returns the arcp URI of the io/fs name inside the container, one
// per authority, in the order of Authorities; dir marks a directory with
// a trailing "/". name must be valid for fs.ValidPath.
func (id *Identity) URIs(name string, dir bool) ([]*URI, error) {
	var us []*URI
	for _, a := range id.Authorities() {
		u, err := New(a, name, dir)
		if err != nil {
			return nil, err
		}
		us = append(us, u)
	}
	return us, nil
}

// Options configure [Identify] and the methods of [Resolver] that
// register containers. A nil *Options means the defaults.
type Options struct {
	// VFS is used to open pipelines (nil means the vfs defaults).
	VFS *vfs.Options
	// NoHash leaves out the ni authority, so that the container's bytes
	// are not read.
	NoHash bool
	// Opened, when set, is called with the container file that hashing
	// opens, before it is read, so that a program can count what reading
	// it costs (vfs.File.Stats). The file is closed once hashed.
	Opened func(*vfs.File)
}

func (o *Options) vfs() *vfs.Options {
	if o == nil {
		return nil
	}
	return o.VFS
}

// Identify returns the authorities of the container whose root directory
// root names: a pipeline ending in an archive adapter with an empty path
// ("file:/d/a.zip|zip:"), as Member.Root is, or a pipeline of a lone
// root sub-URL naming a directory, which is its own container (a folder
// such as a BagIt bag; it has no ni authority). Unless o.NoHash is set,
// a container file is read to its end to hash it, with ctx.
func Identify(ctx context.Context, root vfs.Pipeline, o *Options) (*Identity, error) {
	id := &Identity{Root: root}
	hash := false
	switch m, err := Split(root); {
	case err == nil && m.Name == ".":
		id.Container = m.Container
		_, fileBase := isContainer(root[len(root)-1].Scheme)
		hash = fileBase && !root[len(root)-1].HasAuthority
	case len(root) == 1 && root[0].IsDir():
		id.Container = root
	default:
		return nil, invalidf("%s is not the root of a container, as \"file:/d/a.zip|zip:\" is", root)
	}
	id.UUID = LocationAuthority(id.Container.String())
	id.Name = NameAuthority(containerName(id.Container))
	if hash && (o == nil || !o.NoHash) {
		sum, err := hashFile(ctx, id.Container, o)
		if err != nil {
			return nil, err
		}
		id.NI = NIAuthority("sha-256", sum)
	}
	return id, nil
}

// containerName returns the base name of the innermost path of p that is
// not empty ("a.tar.gz" for "file:/d/a.tar.gz|gzip:"), or "".
func containerName(p vfs.Pipeline) string {
	for i := len(p) - 1; i >= 0; i-- {
		k := p[i].Key()
		if k == "." {
			continue
		}
		for j := len(k) - 1; j >= 0; j-- {
			if k[j] == '/' {
				return k[j+1:]
			}
		}
		return k
	}
	return ""
}

// hashFile returns the SHA-256 of the bytes of the file that p names.
func hashFile(ctx context.Context, p vfs.Pipeline, o *Options) ([]byte, error) {
	f, err := vfs.Open(ctx, p.String(), o.vfs())
	if err != nil {
		return nil, fmt.Errorf("arcp: hashing the container: %w", err)
	}
	defer f.Close()
	if o != nil && o.Opened != nil {
		o.Opened(f)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("arcp: hashing the container %s: %w", p, err)
	}
	return h.Sum(nil), nil
}

// An invalidError is a message for an argument that names no container or
// member; it matches fs.ErrInvalid.
type invalidError struct{ msg string }

func invalidf(format string, a ...any) error {
	return &invalidError{fmt.Sprintf(format, a...)}
}

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return fs.ErrInvalid }
