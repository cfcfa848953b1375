package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/copier"
	"github.com/pipefs/pipefs/internal/optflags"
)

// cpChild runs the CLI in a child process, with no index cache on disk
// so that every run reads what a first one does, and returns its exit
// status and stderr.
func cpChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := cliCommand(t, args...)
	cmd.Env = append(cmd.Env, optflags.CacheDirEnv+"=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// interruptedCopy starts cp --continue of url to dest in a child process
// and sends it SIGINT once it has recorded its source beside the partial
// copy. The server answers the open's requests, the first openRequests,
// and holds the copy's until the child gives up: the copy cannot end
// before the signal.
func interruptedCopy(t *testing.T, srv *fstest.HTTPServer, url, dest string, openRequests int64) {
	t.Helper()
	srv.Inject(fstest.Fault{Kind: fstest.FaultDelay, Delay: time.Until(waitDeadline(t)), Times: -1, Skip: int(openRequests)})
	defer srv.ClearFaults()
	cmd := cliCommand(t, "cp", "--continue", url, dest)
	cmd.Env = append(cmd.Env, optflags.CacheDirEnv+"=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	defer func() {
		cmd.Process.Kill() // when the test gives up
		<-exited
	}()
	waitUntil(t, "the record of the source, "+dest+copier.SourceSuffix, func() bool {
		select {
		case <-exited:
			t.Fatalf("cp --continue exited (%v) before it recorded its source; stderr:\n%s", cmd.ProcessState, stderr.String())
		default:
		}
		_, err := os.Stat(dest + copier.SourceSuffix)
		return err == nil
	}, nil)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitChan(t, "cp --continue to exit after SIGINT", exited, nil)
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("interrupted cp: exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr.String())
	}
	if _, err := os.Stat(dest + copier.PartialSuffix); err != nil {
		t.Fatalf("an interrupted cp --continue kept no partial copy: %v", err)
	}
}

// TestCpContinueHTTP copies a remote file and a member of a remote zip,
// then runs cp --continue over what is left: a complete copy costs the
// open's one request and is not written; a partial one fetches only the
// bytes it lacks; a source that changed is copied again from the start.
func TestCpContinueHTTP(t *testing.T) {
	const size = 3 << 20
	plain := fstest.RandomBytes(size, 1)
	member := fstest.RandomBytes(size, 2)
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "data.bin", Method: zip.Store, Modified: modTime})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(member)
	zw.Close()
	srv := fstest.NewHTTPServer(t, map[string][]byte{"plain.bin": plain, "a.zip": zbuf.Bytes()})
	dir := t.TempDir()

	for _, tc := range []struct {
		name, url string
		data      []byte
		// openRequests are the requests of opening the file: the remote
		// root's suffix read, then for a zip member its local header (and
		// the start of its data, read with it).
		openRequests int64
		openBytes    int64
		// resumeRequests are those of a run that resumes at half the
		// size: the open, then the missing half in two reads.
		resumeRequests int64
	}{
		{"plain", srv.URL() + "/plain.bin", plain, 1, 64 << 10, 3},
		{"stored zip member", srv.URL() + "/a.zip|zip:data.bin", member, 2, 64<<10 + 256<<10, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if code, stderr := cpChild(t, "cp", tc.url, dest); code != 0 {
				t.Fatalf("cp: exit %d, stderr:\n%s", code, stderr)
			}
			checkFile(t, dest, tc.data)

			// Complete: skipped after the open.
			before, _ := os.Stat(dest)
			srv.Reset()
			code, stderr := cpChild(t, "cp", "--continue", "-v", tc.url, dest)
			if code != 0 || !strings.Contains(stderr, "complete, skipped") {
				t.Errorf("cp --continue of a complete copy: exit %d, stderr:\n%s", code, stderr)
			}
			if n := srv.Requests(); n != tc.openRequests {
				t.Errorf("cp --continue of a complete copy made %d requests, want %d (the open):\n%s", n, tc.openRequests, srv.LogString())
			}
			if after, _ := os.Stat(dest); !os.SameFile(before, after) {
				t.Errorf("cp --continue replaced a complete copy")
			}

			// resume runs cp --continue over half a copy, what: it
			// fetches only the half missing.
			half := int64(size / 2)
			resume := func(what string) {
				t.Helper()
				srv.Reset()
				code, stderr := cpChild(t, "cp", "--continue", "-v", tc.url, dest)
				if code != 0 || !strings.Contains(stderr, "resumed at 1572864") {
					t.Errorf("cp --continue of %s: exit %d, stderr:\n%s", what, code, stderr)
				}
				checkFile(t, dest, tc.data)
				if n := srv.Requests(); n != tc.resumeRequests {
					t.Errorf("cp --continue of %s made %d requests, want %d:\n%s", what, n, tc.resumeRequests, srv.LogString())
				}
				if got, most := srv.Bytes(), size-half+tc.openBytes; got > most {
					t.Errorf("cp --continue of %s fetched %d bytes, want at most %d (the half missing and the open's read):\n%s",
						what, got, most, srv.LogString())
				}
			}

			// A shorter file is resumed at its length.
			if err := os.Truncate(dest, half); err != nil {
				t.Fatal(err)
			}
			resume("half a copy")

			// An interrupted copy keeps its bytes and the record of its
			// source; the next run resumes it.
			os.Remove(dest)
			interruptedCopy(t, srv, tc.url, dest, tc.openRequests)
			if err := os.WriteFile(dest+copier.PartialSuffix, tc.data[:half], 0o600); err != nil {
				t.Fatal(err)
			}
			resume("an interrupted copy")
			for _, name := range []string{dest + copier.PartialSuffix, dest + copier.SourceSuffix} {
				if _, err := os.Lstat(name); err == nil {
					t.Errorf("%s is left after the copy completed", name)
				}
			}
		})
	}

	// A tree: the listing gives what --continue compares, and nothing
	// is opened for a complete file.
	t.Run("tree", func(t *testing.T) {
		dest := filepath.Join(dir, "tree")
		// Named, not detected: detection reads the archive's first block.
		url := srv.URL() + "/a.zip|zip:"
		if code, stderr := cpChild(t, "cp", "-R", url, dest); code != 0 {
			t.Fatalf("cp -R: exit %d, stderr:\n%s", code, stderr)
		}
		checkFile(t, filepath.Join(dest, "data.bin"), member)
		srv.Reset()
		code, stderr := cpChild(t, "cp", "-R", "-T", "--continue", url, dest)
		if code != 0 || srv.Requests() != 1 {
			t.Errorf("cp -R --continue of a complete tree: exit %d, %d requests, want 1; stderr:\n%s\n%s", code, srv.Requests(), stderr, srv.LogString())
		}
		if err := os.Truncate(filepath.Join(dest, "data.bin"), size/2); err != nil {
			t.Fatal(err)
		}
		srv.Reset()
		code, stderr = cpChild(t, "cp", "-R", "-T", "--continue", url, dest)
		if code != 0 || srv.Requests() != 4 {
			t.Errorf("cp -R --continue of a partial tree: exit %d, %d requests, want 4; stderr:\n%s\n%s", code, srv.Requests(), stderr, srv.LogString())
		}
		checkFile(t, filepath.Join(dest, "data.bin"), member)
	})

	// A source that changed since the partial copy: copied again whole.
	t.Run("changed", func(t *testing.T) {
		dest := filepath.Join(dir, "changed")
		url := srv.URL() + "/plain.bin"
		interruptedCopy(t, srv, url, dest, 1)
		if err := os.WriteFile(dest+copier.PartialSuffix, plain[:size/2], 0o600); err != nil {
			t.Fatal(err)
		}
		changed := fstest.RandomBytes(size, 3)
		srv.Set("plain.bin", changed)
		srv.Reset()
		code, stderr := cpChild(t, "cp", "--continue", "-v", url, dest)
		if code != 0 || strings.Contains(stderr, "resumed") {
			t.Errorf("cp --continue after the source changed: exit %d, stderr:\n%s", code, stderr)
		}
		checkFile(t, dest, changed)
		if got := srv.Bytes(); got < size {
			t.Errorf("cp --continue after the source changed fetched %d bytes, want all %d", got, size)
		}
	})
}

// checkFile fails t unless the local file name holds want.
func checkFile(t *testing.T, name string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes that differ from the source's %d", name, len(got), len(want))
	}
}
