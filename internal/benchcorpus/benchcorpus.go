// Package benchcorpus builds the large inputs of the compression
// benchmarks at benchmark time, once per process: a tar of Go sources (the
// files a .tar.gz of a source tree holds), compressed by the real tools.
// Nothing here runs in ordinary tests.
package benchcorpus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

var dir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "pipefs-bench") })

var (
	mu    sync.Mutex
	built = map[string]error{}
)

// Tar returns the path of a tar of Go sources (GOROOT's src, test and
// doc, repeated as needed) cut to size bytes. PIPEFS_BENCH_TAR names
// another tar to use instead.
func Tar(size int64) (string, error) {
	if p := os.Getenv("PIPEFS_BENCH_TAR"); p != "" {
		return p, nil
	}
	return build(fmt.Sprintf("src-%d.tar", size), func(out string) string {
		return fmt.Sprintf(`r=$(go env GOROOT) && for i in 1 2 3 4 5 6; do tar cf - -C "$r" src test doc 2>/dev/null; done | head -c %d > %q`,
			size, out)
	})
}

// Compressed returns the path of in compressed by the shell command cmd
// ("gzip -6 -c", "zstd -3 -c"), which reads the file named by its last
// argument and writes to standard output; ext names the result.
func Compressed(in, cmd, ext string) (string, error) {
	return build(filepath.Base(in)+ext, func(out string) string {
		return fmt.Sprintf(`%s %q > %q`, cmd, in, out)
	})
}

// Zip returns the path of a zip holding the first size bytes of the
// source tar as m.bin, deflated by zip -6.
func Zip(size int64) (string, error) {
	src, err := Tar(size)
	if err != nil {
		return "", err
	}
	return build(fmt.Sprintf("m-%d.zip", size), func(out string) string {
		return fmt.Sprintf(`d=$(mktemp -d) && head -c %d %q > "$d/m.bin" && (cd "$d" && zip -q -6 %q m.bin) && rm -r "$d"`, size, src, out)
	})
}

// build runs the script that script(out) returns to build the file name,
// once per process.
func build(name string, script func(out string) string) (string, error) {
	d, err := dir()
	if err != nil {
		return "", err
	}
	out := filepath.Join(d, name)
	mu.Lock()
	defer mu.Unlock()
	if err, ok := built[name]; ok {
		return out, err
	}
	cmd := exec.Command("sh", "-c", script(out))
	if b, err := cmd.CombinedOutput(); err != nil {
		err = fmt.Errorf("building %s: %v: %s", name, err, b)
		built[name] = err
		return out, err
	}
	built[name] = nil
	return out, nil
}

// Run runs the shell command cmd with its output to /dev/null, for the
// benchmarks of the tools.
func Run(cmd string) error {
	return exec.Command("sh", "-c", cmd+" > /dev/null").Run()
}
