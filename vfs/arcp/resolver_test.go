package arcp_test

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/fstest"

	_ "github.com/pipefs/pipefs" // the local roots and the archive adapters
	pfstest "github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/arcp"
)

// archives writes a zip holding a nested zip to a temporary directory and
// returns its path, its bytes and those of the inner zip.
func archives(t *testing.T) (path string, outer, inner []byte) {
	t.Helper()
	inner = pfstest.ZipBytes(map[string][]byte{
		"x.txt":   []byte("inner x\n"),
		"d/y.txt": []byte("inner y\n"),
	}, zip.Deflate)
	outer = pfstest.ZipBytes(map[string][]byte{
		"dir/f.txt":       []byte("outer f\n"),
		"dir/sub/g.txt":   []byte("outer g\n"),
		"a b#%.txt":       []byte("odd name\n"),
		"caf\u00e9/n.txt": []byte("non-ASCII\n"),
		"inner.zip":       inner,
	}, zip.Store)
	path = filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(path, outer, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, outer, inner
}

func niOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "ni,sha-256;" + base64.RawURLEncoding.EncodeToString(sum[:])
}

func TestSplit(t *testing.T) {
	tests := []struct{ in, container, root, name string }{
		{"file:/d/a.zip|zip:dir/f.txt", "file:/d/a.zip", "file:/d/a.zip|zip:", "dir/f.txt"},
		{"file:/d/a.zip|zip:", "file:/d/a.zip", "file:/d/a.zip|zip:", "."},
		{"file:/d/a.zip|zip:in.zip|zip:x", "file:/d/a.zip|zip:in.zip", "file:/d/a.zip|zip:in.zip|zip:", "x"},
		{"file:/d/a.zip|zip:in.zip", "file:/d/a.zip", "file:/d/a.zip|zip:", "in.zip"},
		{"file:/d/a.tar.gz|gzip:|pipefs.tar:a%20b/c", "file:/d/a.tar.gz|gzip:", "file:/d/a.tar.gz|gzip:|pipefs.tar:", "a b/c"},
		{"file:/d/s/|ocdbt://v3/k", "file:/d/s/|ocdbt://v3", "file:/d/s/|ocdbt://v3", "k"},
		{"file:/d/s/|ocdbt:k/", "file:/d/s/", "file:/d/s/|ocdbt:", "k"},
	}
	for _, tc := range tests {
		m, err := arcp.Split(vfs.MustParse(tc.in))
		if err != nil {
			t.Errorf("Split(%q): %v", tc.in, err)
			continue
		}
		if m.Container.String() != tc.container || m.Root.String() != tc.root || m.Name != tc.name {
			t.Errorf("Split(%q) = %s, %s, %q; want %s, %s, %q", tc.in, m.Container, m.Root, m.Name, tc.container, tc.root, tc.name)
		}
	}
	for _, in := range []string{"file:/d/x.txt", "file:/d/a.zip|zip:x.gz|gzip:", "file:/d/a.zip|zip:a//b", "memory:"} {
		if m, err := arcp.Split(vfs.MustParse(in)); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Split(%q) = %+v, %v; want an fs.ErrInvalid error", in, m, err)
		}
	}
}

func TestIdentify(t *testing.T) {
	ctx := t.Context()
	path, outer, inner := archives(t)
	file := vfs.MustParse("file:" + filepath.ToSlash(path)).String()
	tests := []struct {
		root, container string
		bytes           []byte
		name            string
	}{
		{file + "|zip:", file, outer, "name,a.zip"},
		{file + "|zip:inner.zip|zip:", file + "|zip:inner.zip", inner, "name,inner.zip"},
	}
	for _, tc := range tests {
		id, err := arcp.Identify(ctx, vfs.MustParse(tc.root), nil)
		if err != nil {
			t.Fatalf("Identify(%q): %v", tc.root, err)
		}
		want := "uuid," + arcp.NewSHA1(arcp.NamespaceURL, []byte(tc.container)).String()
		if id.Container.String() != tc.container || id.UUID != want || id.NI != niOf(tc.bytes) || id.Name != tc.name {
			t.Errorf("Identify(%q) = %+v; want container %s, %s, %s, %s", tc.root, *id, tc.container, want, niOf(tc.bytes), tc.name)
		}
		id, err = arcp.Identify(ctx, vfs.MustParse(tc.root), &arcp.Options{NoHash: true})
		if err != nil || id.NI != "" || id.UUID != want {
			t.Errorf("Identify(%q, NoHash) = %+v, %v; want no ni", tc.root, id, err)
		}
	}

	// A folder is its own container, with no byte stream to hash.
	dir := vfs.MustParse("file:" + filepath.ToSlash(filepath.Dir(path)) + "/")
	id, err := arcp.Identify(ctx, dir, nil)
	if err != nil {
		t.Fatalf("Identify(%s): %v", dir, err)
	}
	if id.NI != "" || id.Name != arcp.NameAuthority(filepath.Base(filepath.Dir(path))) || id.UUID != arcp.LocationAuthority(dir.String()) {
		t.Errorf("Identify(%s) = %+v", dir, *id)
	}

	for _, bad := range []string{file, file + "|zip:dir/", file + "|zip:dir/f.txt"} {
		if id, err := arcp.Identify(ctx, vfs.MustParse(bad), nil); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Identify(%q) = %+v, %v; want an fs.ErrInvalid error", bad, id, err)
		}
	}
	if _, err := arcp.Identify(ctx, vfs.MustParse("file:/no/such/dir/a.zip|zip:"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Identify of a missing container: %v, want fs.ErrNotExist", err)
	}
}

// readURI opens uri with r and returns its bytes.
func readURI(t *testing.T, r *arcp.Resolver, uri string) []byte {
	t.Helper()
	f, err := r.Open(t.Context(), uri)
	if err != nil {
		t.Fatalf("Open(%q): %v", uri, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("Open(%q): read: %v", uri, err)
	}
	return b
}

func TestResolverOpen(t *testing.T) {
	ctx := t.Context()
	path, _, _ := archives(t)
	file := "file:" + filepath.ToSlash(path)
	var r arcp.Resolver
	defer r.Close()
	outer, err := r.AddPipeline(ctx, file, nil) // detected: file:…/a.zip|zip:
	if err != nil {
		t.Fatal(err)
	}
	innerID, err := r.AddPipeline(ctx, file+"|zip:inner.zip|zip:", nil)
	if err != nil {
		t.Fatal(err)
	}
	members := []struct {
		id   *arcp.Identity
		name string
		want string
	}{
		{outer, "dir/f.txt", "outer f\n"},
		{outer, "a b#%.txt", "odd name\n"},
		{outer, "caf\u00e9/n.txt", "non-ASCII\n"},
		{innerID, "x.txt", "inner x\n"},
		{innerID, "d/y.txt", "inner y\n"},
	}
	for _, m := range members {
		us, err := m.id.URIs(m.name, false)
		if err != nil || len(us) != 3 {
			t.Fatalf("URIs(%q) = %v, %v; want 3", m.name, us, err)
		}
		for _, u := range us {
			if got := string(readURI(t, &r, u.String())); got != m.want {
				t.Errorf("%s: %q, want %q", u, got, m.want)
			}
			// The same URI with its authority spelled in upper case.
			v := *u
			v.Authority = upperAuthority(u)
			if got := string(readURI(t, &r, v.String())); got != m.want {
				t.Errorf("%s: %q, want %q", &v, got, m.want)
			}
		}
	}

	// Relative references stay in their container.
	base, _ := arcp.New(outer.Name, "dir/sub/g.txt", false)
	for ref, want := range map[string]string{
		"../f.txt":                       "outer f\n",
		"../../../../../a%20b%23%25.txt": "odd name\n",
		"/../../dir/./f.txt":             "outer f\n",
		"../../inner.zip/../dir/f.txt":   "outer f\n",
	} {
		u, err := base.Resolve(ref)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", ref, err)
		}
		if got := string(readURI(t, &r, u.String())); got != want {
			t.Errorf("%s + %q = %s: %q, want %q", base, ref, u, got, want)
		}
	}
	// A URI as written may hold dot segments: they cannot leave the
	// container either.
	if got := string(readURI(t, &r, "arcp://"+innerID.UUID+"/../../../x.txt")); got != "inner x\n" {
		t.Errorf("dot segments above the root: %q", got)
	}

	// Directories, with and without the trailing "/".
	for _, u := range []string{"arcp://" + outer.NI + "/dir/", "arcp://" + outer.NI + "/dir", "arcp://" + outer.NI + "/", "arcp://" + outer.NI} {
		f, err := r.Open(ctx, u)
		if err != nil {
			t.Fatalf("Open(%q): %v", u, err)
		}
		ents, err := f.ReadDir(-1)
		f.Close()
		if err != nil || len(ents) == 0 {
			t.Errorf("Open(%q).ReadDir = %v, %v", u, ents, err)
		}
	}

	errTests := []struct {
		uri  string
		want error
	}{
		{"arcp://uuid,2a47c495-ac70-4ed1-850b-8800a57618cf/dir/f.txt", fs.ErrNotExist},
		{"arcp://name,b.zip/dir/f.txt", fs.ErrNotExist},
		{"arcp://example.com/dir/f.txt", fs.ErrNotExist},
		{"arcp://" + outer.UUID + "/dir/missing.txt", fs.ErrNotExist},
		{"arcp://" + outer.UUID + "/dir/f.txt/", vfs.ErrNotDir},
		{"arcp://" + outer.UUID + "/%2E%2E/a.zip", fs.ErrInvalid},
		{"arcp://" + outer.UUID + "/dir//f.txt", fs.ErrInvalid},
		{"arcp://" + outer.UUID + "/a b", arcp.ErrSyntax},
		{"http://x/dir/f.txt", arcp.ErrSyntax},
	}
	for _, tc := range errTests {
		f, err := r.Open(ctx, tc.uri)
		if !errors.Is(err, tc.want) {
			t.Errorf("Open(%q) = %v, %v; want an error matching %v", tc.uri, f, err, tc.want)
			continue
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Op != "open" || pe.Path != tc.uri {
			t.Errorf("Open(%q): %#v is not a *fs.PathError for the URI", tc.uri, err)
		}
	}

	// Registering the same container twice is refused.
	if _, err := r.AddPipeline(ctx, file+"|zip:", nil); !errors.Is(err, arcp.ErrRegistered) {
		t.Errorf("AddPipeline twice: %v, want ErrRegistered", err)
	}

	// Removed: every authority is gone, and says so.
	if err := r.Remove(innerID); err != nil {
		t.Fatal(err)
	}
	for _, a := range innerID.Authorities() {
		_, err := r.Open(ctx, "arcp://"+a+"/x.txt")
		if !errors.Is(err, arcp.ErrGone) || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open after Remove: %v, want ErrGone and not fs.ErrNotExist", err)
		}
		if _, err := r.Lookup(a); !errors.Is(err, arcp.ErrGone) {
			t.Errorf("Lookup(%q) after Remove: %v, want ErrGone", a, err)
		}
	}
	// The outer container is still there.
	if got := string(readURI(t, &r, "arcp://"+outer.UUID+"/dir/f.txt")); got != "outer f\n" {
		t.Errorf("after removing the inner container: %q", got)
	}
	// Registered again, it resolves again.
	again, err := r.AddPipeline(ctx, file+"|zip:inner.zip", nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.UUID != innerID.UUID || again.NI != innerID.NI {
		t.Errorf("identity changed: %+v, was %+v", *again, *innerID)
	}
	if got := string(readURI(t, &r, "arcp://"+innerID.UUID+"/x.txt")); got != "inner x\n" {
		t.Errorf("after adding again: %q", got)
	}
}

// upperAuthority returns the authority of u with its prefix and, except
// for ni values, its text in upper case.
func upperAuthority(u *arcp.URI) string {
	b := []byte(u.Authority)
	end := len(b)
	if u.Kind() == arcp.KindNI {
		end = len("ni,sha-256")
	}
	for i := range b[:end] {
		if 'a' <= b[i] && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// TestResolverAdd registers an FS that the caller owns.
func TestResolverAdd(t *testing.T) {
	ctx := t.Context()
	path, outerBytes, _ := archives(t)
	fsys, err := vfs.OpenFS(ctx, "file:"+filepath.ToSlash(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var r arcp.Resolver
	id, err := r.Add(ctx, fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if id.NI != niOf(outerBytes) {
		t.Errorf("NI = %s, want %s", id.NI, niOf(outerBytes))
	}
	if got := string(readURI(t, &r, "arcp://"+id.Name+"/dir/f.txt")); got != "outer f\n" {
		t.Errorf("read %q", got)
	}
	sub, err := fsys.Sub("dir")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(ctx, sub.(*vfs.FS), nil); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Add of a subdirectory: %v, want fs.ErrInvalid", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// The Resolver did not close what it does not own.
	if b, err := fs.ReadFile(fsys, "dir/f.txt"); err != nil || string(b) != "outer f\n" {
		t.Errorf("after Resolver.Close: %q, %v", b, err)
	}
	if _, err := r.Open(ctx, "arcp://"+id.Name+"/dir/f.txt"); !errors.Is(err, arcp.ErrGone) {
		t.Errorf("after Resolver.Close: %v, want ErrGone", err)
	}
}

func TestResolverFS(t *testing.T) {
	ctx := t.Context()
	path, _, _ := archives(t)
	var r arcp.Resolver
	defer r.Close()
	id, err := r.AddPipeline(ctx, "file:"+filepath.ToSlash(path)+"|zip:inner.zip", nil)
	if err != nil {
		t.Fatal(err)
	}
	fsys := r.FS(ctx)
	var want []string
	for _, a := range id.Authorities() {
		want = append(want, a+"/x.txt", a+"/d/y.txt")
	}
	if err := fstest.TestFS(fsys, want...); err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(fsys, id.NI+"/d/y.txt")
	if err != nil || string(b) != "inner y\n" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if as := slices.Sorted(slices.Values(id.Authorities())); !slices.Equal(names, as) {
		t.Errorf("root lists %q, want %q", names, as)
	}
	if _, err := fsys.Open("name,nothing.zip/x.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unknown authority: %v", err)
	}
	r.Remove(id)
	if _, err := fsys.Open(id.UUID + "/x.txt"); !errors.Is(err, arcp.ErrGone) {
		t.Errorf("after Remove: %v, want ErrGone", err)
	}
	if ents, err := fs.ReadDir(fsys, "."); err != nil || len(ents) != 0 {
		t.Errorf("root after Remove: %v, %v", ents, err)
	}
}

// TestResolverConcurrent opens URIs while containers come and go; run it
// with -race.
func TestResolverConcurrent(t *testing.T) {
	ctx := t.Context()
	path, _, _ := archives(t)
	file := "file:" + filepath.ToSlash(path)
	var r arcp.Resolver
	defer r.Close()
	outer, err := r.AddPipeline(ctx, file, &arcp.Options{NoHash: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				f, err := r.Open(ctx, "arcp://"+outer.UUID+"/dir/f.txt")
				if err != nil {
					t.Error(err)
					return
				}
				b, err := io.ReadAll(f)
				f.Close()
				if err != nil || string(b) != "outer f\n" {
					t.Errorf("read %q, %v", b, err)
					return
				}
				f, err = r.Open(context.Background(), "arcp://"+arcp.LocationAuthority(file+"|zip:inner.zip")+"/x.txt")
				switch {
				case err == nil:
					f.Close()
				case errors.Is(err, fs.ErrNotExist), errors.Is(err, arcp.ErrGone):
				default:
					t.Errorf("inner: %v", err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			id, err := r.AddPipeline(ctx, file+"|zip:inner.zip", &arcp.Options{NoHash: true})
			if err != nil {
				t.Error(err)
				return
			}
			r.Remove(id)
		}
	})
	wg.Wait()
}

// TestResolverSharedNI registers two copies of one zip: they share their
// ni authority, which resolves while either is registered.
func TestResolverSharedNI(t *testing.T) {
	ctx := t.Context()
	path, outer, _ := archives(t)
	copyPath := filepath.Join(t.TempDir(), "copy.zip")
	if err := os.WriteFile(copyPath, outer, 0o644); err != nil {
		t.Fatal(err)
	}
	var r arcp.Resolver
	defer r.Close()
	a, err := r.AddPipeline(ctx, "file:"+filepath.ToSlash(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.AddPipeline(ctx, "file:"+filepath.ToSlash(copyPath), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.NI != b.NI || a.UUID == b.UUID || a.Name == b.Name {
		t.Fatalf("identities %+v and %+v: want the same ni only", *a, *b)
	}
	if got, err := r.Lookup(a.NI); err != nil || got != a {
		t.Errorf("Lookup(ni) = %v, %v; want the first registered", got, err)
	}
	r.Remove(a)
	if got, err := r.Lookup(a.NI); err != nil || got != b {
		t.Errorf("Lookup(ni) after removing the first = %v, %v; want the second", got, err)
	}
	if got := string(readURI(t, &r, "arcp://"+a.NI+"/dir/f.txt")); got != "outer f\n" {
		t.Errorf("read %q", got)
	}
	if _, err := r.Lookup(a.UUID); !errors.Is(err, arcp.ErrGone) {
		t.Errorf("Lookup(uuid) of the removed one: %v, want ErrGone", err)
	}
	r.Remove(b)
	if _, err := r.Lookup(a.NI); !errors.Is(err, arcp.ErrGone) {
		t.Errorf("Lookup(ni) after removing both: %v, want ErrGone", err)
	}
}

// TestIdentifyCanceled hashes with a canceled context.
func TestIdentifyCanceled(t *testing.T) {
	path, _, _ := archives(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	root := vfs.MustParse("file:" + filepath.ToSlash(path) + "|zip:")
	if id, err := arcp.Identify(ctx, root, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Identify with a canceled context = %v, %v; want context.Canceled", id, err)
	}
	// Without hashing nothing is read, and the context is not consulted.
	if _, err := arcp.Identify(ctx, root, &arcp.Options{NoHash: true}); err != nil {
		t.Errorf("Identify(NoHash) with a canceled context: %v", err)
	}
}

// BenchmarkIdentify hashes an 8 MiB container.
func BenchmarkIdentify(b *testing.B) {
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	z := pfstest.ZipBytes(map[string][]byte{"big.bin": data}, zip.Store)
	path := filepath.Join(b.TempDir(), "big.zip")
	if err := os.WriteFile(path, z, 0o644); err != nil {
		b.Fatal(err)
	}
	root := vfs.MustParse("file:" + filepath.ToSlash(path) + "|zip:")
	b.SetBytes(int64(len(z)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := arcp.Identify(b.Context(), root, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolverOpen opens a member by its arcp URI.
func BenchmarkResolverOpen(b *testing.B) {
	z := pfstest.ZipBytes(map[string][]byte{"dir/f.txt": []byte("f\n")}, zip.Store)
	path := filepath.Join(b.TempDir(), "a.zip")
	if err := os.WriteFile(path, z, 0o644); err != nil {
		b.Fatal(err)
	}
	var r arcp.Resolver
	defer r.Close()
	id, err := r.AddPipeline(b.Context(), "file:"+filepath.ToSlash(path), nil)
	if err != nil {
		b.Fatal(err)
	}
	uri := "arcp://" + id.NI + "/dir/./f.txt"
	b.ReportAllocs()
	for b.Loop() {
		f, err := r.Open(b.Context(), uri)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// TestIdentifyOpened: Options.Opened is given the container file that
// hashing opens, once, and not called when nothing is hashed.
func TestIdentifyOpened(t *testing.T) {
	path, outer, _ := archives(t)
	root := vfs.MustParse("file:" + path + "|zip:")
	var files []*vfs.File
	o := &arcp.Options{Opened: func(f *vfs.File) { files = append(files, f) }}
	if _, err := arcp.Identify(t.Context(), root, o); err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Size() != int64(len(outer)) {
		t.Fatalf("Opened called with %d files, want the container", len(files))
	}
	files = nil
	o.NoHash = true
	if _, err := arcp.Identify(t.Context(), root, o); err != nil {
		t.Fatal(err)
	}
	if len(files) != 0 {
		t.Errorf("Opened called %d times with NoHash", len(files))
	}
}
