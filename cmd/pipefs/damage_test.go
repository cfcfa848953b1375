package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestDamagedArchives damages archives that GNU tar, gzip, bzip2, xz,
// zstd and Info-ZIP wrote, by a flipped bit at several places and by
// truncation at several lengths, and reads every member of every damaged
// copy with cat and cp and lists it with ls -R (scripts/damage.sh does the
// same at a larger scale, with the built binary): no read gives wrong
// bytes with exit status 0, a failed cp leaves no file, and every listing
// of a damaged compressed tar exits 1 (the listing decodes the whole
// stream, so it meets every check the stream carries).
func TestDamagedArchives(t *testing.T) {
	for _, tool := range []string{"tar", "gzip", "bzip2", "xz", "zstd", "zip"} {
		fstest.NeedTool(t, tool)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda")
	members := map[string][]byte{}
	for i := 1; i <= 4; i++ {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		var b bytes.Buffer
		for b.Len() < 48<<10 {
			fmt.Fprintf(&b, "%s%d ", words[r.IntN(len(words))], r.IntN(1000))
		}
		name := fmt.Sprintf("m%d.txt", i)
		members[name] = b.Bytes()
		if err := os.WriteFile(filepath.Join(src, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh := func(script string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	sh(`cd src && tar cf ../t.tar m1.txt m2.txt m3.txt m4.txt && cd .. &&
		gzip -k t.tar && bzip2 -k t.tar && xz -k t.tar && zstd -q t.tar -o t.tar.zst &&
		cd src && zip -q ../t.zip m*.txt && zip -q0 ../s.zip m*.txt`)

	archives := []struct {
		name, chain string
		listed      bool // every damage shows in a listing
	}{
		{"t.tar.gz", "|gzip:|pipefs.tar:", true},
		{"t.tar.bz2", "|pipefs.bzip2:|pipefs.tar:", true},
		{"t.tar.xz", "|pipefs.xz:|pipefs.tar:", true},
		{"t.tar.zst", "|zstd:|pipefs.tar:", true},
		{"t.zip", "|zip:", false},
		{"s.zip", "|zip:", false},
	}
	const flips, cuts = 6, 4
	for _, a := range archives {
		t.Run(a.name, func(t *testing.T) {
			whole, err := os.ReadFile(filepath.Join(dir, a.name))
			if err != nil {
				t.Fatal(err)
			}
			var wrong, failed, reads int
			for k := 1; k <= flips+cuts; k++ {
				var b []byte
				how := "flip"
				if k <= flips {
					b = bytes.Clone(whole)
					b[len(b)*k/(flips+1)] ^= 1 << (k % 8)
				} else {
					how = "cut"
					b = whole[:len(whole)*(k-flips)/(cuts+1)]
				}
				// A name of its own: the CLI's caches key on the path.
				path := filepath.Join(dir, fmt.Sprintf("%s-%d-%s", how, k, a.name))
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				url := "file:" + filepath.ToSlash(path) + a.chain
				if r := runCLI(t, "ls", "-R", url); r.code == 0 && (a.listed || how == "cut") {
					t.Errorf("ls -R of %s damaged (%s %d): exit 0, want 1\n%s", a.name, how, k, r.stdout)
				}
				for name, want := range members {
					r := runCLI(t, "cat", url+name)
					reads++
					if r.code != 0 {
						failed++
					} else if r.stdout != string(want) {
						wrong++
						t.Errorf("cat of %s in %s damaged (%s %d): wrong bytes with exit 0", name, a.name, how, k)
					}
					out := filepath.Join(dir, "copy")
					r = runCLI(t, "cp", url+name, out)
					got, rerr := os.ReadFile(out)
					switch {
					case r.code != 0 && rerr == nil:
						t.Errorf("cp of %s in %s damaged (%s %d) failed and left a copy: %s", name, a.name, how, k, r.stderr)
					case r.code == 0 && !bytes.Equal(got, want):
						wrong++
						t.Errorf("cp of %s in %s damaged (%s %d): wrong bytes with exit 0", name, a.name, how, k)
					}
					os.Remove(out)
				}
			}
			if failed == 0 {
				t.Errorf("%d reads of damaged copies, none failed", reads)
			}
			t.Logf("%s: %d cat reads of damaged copies: %d wrong with exit 0, %d failed", a.name, reads, wrong, failed)
		})
	}
}

// TestCatDamagedZstd damages .zst files that zstd wrote, by a flipped bit
// at several places and by truncation at several lengths: a frame of 4
// MiB, which cat decodes ahead of the copy on two cores, and a frame of
// 20 MiB, more than cat holds back. cat of the 4 MiB file either writes
// its data and exits 0 or writes nothing and exits 1; cat of the 20 MiB
// file with a wrong content checksum has written what decoded, the data,
// when the check at the frame's end fails, and exits 1.
func TestCatDamagedZstd(t *testing.T) {
	fstest.NeedTool(t, "zstd")
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(22, 6))
	var b bytes.Buffer
	for b.Len() < 20<<20 {
		fmt.Fprintf(&b, "%x ", r.IntN(1<<20))
	}
	data := b.Bytes()[:20<<20]
	small := data[:4<<20]
	compress := func(name string, p []byte) []byte {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, p, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("zstd", "-q", path).CombinedOutput(); err != nil {
			t.Fatalf("zstd %s: %v\n%s", name, err, out)
		}
		z, err := os.ReadFile(path + ".zst")
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	z := compress("small", small)
	const flips, cuts = 6, 4
	failed := 0
	for k := 1; k <= flips+cuts; k++ {
		bad := bytes.Clone(z)
		how := "flip"
		if k <= flips {
			bad[len(bad)*k/(flips+1)] ^= 1 << (k % 8)
		} else {
			how = "cut"
			bad = bad[:len(bad)*(k-flips)/(cuts+1)]
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.zst", how, k))
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, "cat", "file:"+filepath.ToSlash(path)+"|zstd:")
		switch {
		case r.code == 0 && r.stdout != string(small):
			t.Errorf("cat of %s: %d bytes, not the data, with exit 0", path, len(r.stdout))
		case r.code != 0 && r.stdout != "":
			t.Errorf("cat of %s: exit %d after writing %d bytes, want none", path, r.code, len(r.stdout))
		case r.code != 0:
			failed++
		}
	}
	if failed == 0 {
		t.Errorf("cat of %d damaged copies: none failed", flips+cuts)
	}

	big := compress("big", data)
	big[len(big)-1] ^= 1 // the content checksum
	path := filepath.Join(dir, "big-checksum.zst")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	res := runCLI(t, "cat", "file:"+filepath.ToSlash(path)+"|zstd:")
	if res.code != 1 || !strings.Contains(res.stderr, "checksum") || len(res.stdout) <= 16<<20 || !strings.HasPrefix(string(data), res.stdout) {
		t.Errorf("cat of a 20 MiB frame with a wrong checksum: exit %d, %d bytes written (the data: %v), stderr %q; want exit 1 after the data",
			res.code, len(res.stdout), strings.HasPrefix(string(data), res.stdout), res.stderr)
	}
}
