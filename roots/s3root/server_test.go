package s3root_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"

	"github.com/pipefs/pipefs/fstest/cloudtest"
)

// The test server: versitygw, a real S3 server with a posix backend (see
// fstest/cloudtest), started once for the package. Every request goes
// through a counting proxy, so tests see what the server saw.
const (
	accessKey = cloudtest.AccessKey
	secretKey = cloudtest.SecretKey
)

var (
	gw      *cloudtest.Versitygw // nil when versitygw is unavailable
	gwSkip  string               // why
	gwProxy *cloudtest.Counter
)

func TestMain(m *testing.M) {
	code := func() int {
		s, err := cloudtest.StartVersitygw()
		if err != nil {
			gwSkip = err.Error()
			if cloudtest.Required() { // CI built it: it must be there
				fmt.Fprintln(os.Stderr, gwSkip)
				return 1
			}
			return m.Run()
		}
		defer s.Stop()
		gw = s
		if gwProxy, err = cloudtest.NewCounter(s.Addr, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer gwProxy.Close()
		return m.Run()
	}()
	os.Exit(code)
}

// needGW skips the test when versitygw is unavailable.
func needGW(t *testing.T) {
	t.Helper()
	if gw == nil {
		t.Skip(gwSkip)
	}
}

// newCounter starts a counting proxy to target, stopped by the caller.
func newCounter(t *testing.T, target string, rewrite func(*http.Request)) *cloudtest.Counter {
	t.Helper()
	c, err := cloudtest.NewCounter(target, rewrite)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var buckets sync.Map

// bucket creates bucket (once).
func bucket(t *testing.T, name string, public bool) {
	t.Helper()
	if _, ok := buckets.Load(name); ok {
		return
	}
	if err := gw.CreateBucket(context.Background(), name, public); err != nil {
		t.Fatal(err)
	}
	buckets.Store(name, true)
}

func put(t *testing.T, bucketName, key string, data []byte) {
	t.Helper()
	if err := gw.Put(context.Background(), bucketName, key, data); err != nil {
		t.Fatal(err)
	}
}

func putFiles(t *testing.T, bucketName, prefix string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		put(t, bucketName, prefix+name, data)
	}
}
