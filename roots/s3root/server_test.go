package s3root_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The test server: versitygw, a real S3 server with a posix backend, built
// from the tools module and started once for the package. Every request
// goes through a counting proxy, so tests see what the server saw.
const (
	versitygwVersion = "v1.8.0"
	accessKey        = "pipefs-access"
	secretKey        = "pipefs-secret-key"
)

var (
	gw      *server // nil when versitygw is unavailable
	gwSkip  string  // why
	gwProxy *counter
)

type server struct {
	cmd  *exec.Cmd
	dir  string
	addr string // host:port of versitygw itself
}

func TestMain(m *testing.M) {
	code := func() int {
		bin, err := versitygwBinary()
		if err != nil {
			gwSkip = "versitygw is unavailable: " + err.Error()
			if os.Getenv("PIPEFS_VERSITYGW") != "" { // CI built it: it must be there
				fmt.Fprintln(os.Stderr, gwSkip)
				return 1
			}
			return m.Run()
		}
		s, err := startVersitygw(bin)
		if err != nil {
			gwSkip = "versitygw did not start: " + err.Error()
			if os.Getenv("PIPEFS_VERSITYGW") != "" {
				fmt.Fprintln(os.Stderr, gwSkip)
				return 1
			}
			return m.Run()
		}
		defer s.stop()
		gw = s
		gwProxy = newCounter(s.addr, nil)
		defer gwProxy.close()
		return m.Run()
	}()
	os.Exit(code)
}

// versitygwBinary returns the path of the versitygw binary: $PIPEFS_VERSITYGW
// when set (CI builds it there), else a build cached in the user's cache
// directory, built from ../../tools when missing.
func versitygwBinary() (string, error) {
	if p := os.Getenv("PIPEFS_VERSITYGW"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "pipefs", "versitygw-"+versitygwVersion)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tools, err := filepath.Abs(filepath.Join("..", "..", "tools"))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "building versitygw %s into %s (a few minutes, once)\n", versitygwVersion, bin)
	cmd := exec.Command("go", "build", "-o", bin+".tmp", "github.com/versity/versitygw/cmd/versitygw")
	cmd.Dir = tools
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build in %s: %v\n%s", tools, err, out.String())
	}
	return bin, os.Rename(bin+".tmp", bin)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func startVersitygw(bin string) (*server, error) {
	dir, err := os.MkdirTemp("", "pipefs-versitygw-")
	if err != nil {
		return nil, err
	}
	for range 3 { // the free port may be taken before versitygw binds it
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(bin, "--access", accessKey, "--secret", secretKey, "--port", addr, "posix", dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case <-exited:
				deadline = time.Time{}
				continue
			default:
			}
			if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
				c.Close()
				return &server{cmd: cmd, dir: dir, addr: addr}, nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Kill()
		<-exited
		if !strings.Contains(out.String(), "address already in use") {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%s", out.String())
		}
	}
	os.RemoveAll(dir)
	return nil, fmt.Errorf("no free port")
}

func (s *server) stop() {
	s.cmd.Process.Kill()
	os.RemoveAll(s.dir)
}

// needGW skips the test when versitygw is unavailable.
func needGW(t *testing.T) {
	t.Helper()
	if gw == nil {
		t.Skip(gwSkip)
	}
}

// counter is a reverse proxy that counts requests and can rewrite them.
type counter struct {
	srv     *http.Server
	addr    string
	mu      sync.Mutex
	reqs    []string
	rewrite func(*http.Request)
}

func newCounter(target string, rewrite func(*http.Request)) *counter {
	c := &counter{rewrite: rewrite}
	u := &url.URL{Scheme: "http", Host: target}
	rp := httputil.NewSingleHostReverseProxy(u)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	c.addr = l.Addr().String()
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		desc := r.Method + " " + r.URL.RequestURI()
		if rg := r.Header.Get("Range"); rg != "" {
			desc += " Range:" + rg
		}
		if r.Header.Get("If-Match") != "" {
			desc += " If-Match"
		}
		c.reqs = append(c.reqs, desc)
		c.mu.Unlock()
		if c.rewrite != nil {
			c.rewrite(r)
		}
		rp.ServeHTTP(w, r)
	})}
	go c.srv.Serve(l)
	return c
}

func (c *counter) close() { c.srv.Close() }

// take returns the requests seen since the last call and forgets them.
func (c *counter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reqs
	c.reqs = nil
	return r
}

// admin returns a client that writes to versitygw directly.
func admin() *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://" + gw.addr),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
	})
}

var buckets sync.Map

// bucket creates bucket (once) and puts files under prefix in it.
func bucket(t *testing.T, name string, public bool) {
	t.Helper()
	if _, ok := buckets.Load(name); ok {
		return
	}
	ctx := context.Background()
	c := admin()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("CreateBucket(%s): %v", name, err)
	}
	if public {
		policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",`+
			`"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::%s","arn:aws:s3:::%s/*"]}]}`, name, name)
		if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(name), Policy: aws.String(policy)}); err != nil {
			t.Fatalf("PutBucketPolicy(%s): %v", name, err)
		}
	}
	buckets.Store(name, true)
}

func put(t *testing.T, bucketName, key string, data []byte) {
	t.Helper()
	_, err := admin().PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(bucketName), Key: aws.String(key), Body: bytes.NewReader(data),
	})
	if err != nil {
		t.Fatalf("PutObject(%s/%s): %v", bucketName, key, err)
	}
}

func putFiles(t *testing.T, bucketName, prefix string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		put(t, bucketName, prefix+name, data)
	}
}
