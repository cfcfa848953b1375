package cloudtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The versitygw release that tools/go.mod pins, and the keys of every
// server that StartVersitygw starts.
const (
	VersitygwVersion = "v1.8.0"
	AccessKey        = "pipefs-access"
	SecretKey        = "pipefs-secret-key"
)

// Required reports whether versitygw must be available: when
// PIPEFS_VERSITYGW is set (CI builds it there), a test that cannot start
// it fails instead of skipping.
func Required() bool { return os.Getenv("PIPEFS_VERSITYGW") != "" }

// A Versitygw is a running versitygw server, with a posix backend in a
// temporary directory.
type Versitygw struct {
	// Addr is the server's host:port.
	Addr string

	cmd *exec.Cmd
	dir string
}

// VersitygwBinary returns the path of the versitygw binary:
// $PIPEFS_VERSITYGW when set, else a build cached in the user's cache
// directory, built from the module's tools/ directory when missing (a few
// minutes, once).
func VersitygwBinary() (string, error) {
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
	bin := filepath.Join(cache, "pipefs", "versitygw-"+VersitygwVersion)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	tools := filepath.Join(root, "tools")
	fmt.Fprintf(os.Stderr, "building versitygw %s into %s (a few minutes, once)\n", VersitygwVersion, bin)
	cmd := exec.Command("go", "build", "-o", bin+".tmp", "github.com/versity/versitygw/cmd/versitygw")
	cmd.Dir = tools
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build in %s: %v\n%s", tools, err, out.String())
	}
	return bin, os.Rename(bin+".tmp", bin)
}

// moduleRoot returns the directory of the go.mod at or above the working
// directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// StartVersitygw finds versitygw (VersitygwBinary) and starts it on a
// free loopback port. The caller must Stop it.
func StartVersitygw() (*Versitygw, error) {
	bin, err := VersitygwBinary()
	if err != nil {
		return nil, fmt.Errorf("versitygw is unavailable: %w", err)
	}
	dir, err := os.MkdirTemp("", "pipefs-versitygw-")
	if err != nil {
		return nil, err
	}
	for range 3 { // the free port may be taken before versitygw binds it
		addr, err := freeAddr()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--port", addr, "posix", dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("versitygw did not start: %w", err)
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
				return &Versitygw{Addr: addr, cmd: cmd, dir: dir}, nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Kill()
		<-exited
		if !strings.Contains(out.String(), "address already in use") {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("versitygw did not start: %s", out.String())
		}
	}
	os.RemoveAll(dir)
	return nil, errors.New("versitygw did not start: no free port")
}

// NeedVersitygw starts versitygw for the test t and stops it when t's
// cleanup runs. When it cannot start, t skips, or fails if Required.
func NeedVersitygw(t testing.TB) *Versitygw {
	t.Helper()
	gw, err := StartVersitygw()
	if err != nil {
		if Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Cleanup(gw.Stop)
	return gw
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Stop ends the server and removes its data.
func (s *Versitygw) Stop() {
	s.cmd.Process.Kill()
	s.cmd.Process.Wait()
	os.RemoveAll(s.dir)
}

// Admin returns a client that writes to the server directly, with its
// keys.
func (s *Versitygw) Admin() *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://" + s.Addr),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
}

// CreateBucket creates the bucket name; a public one lets anyone get and
// list its objects.
func (s *Versitygw) CreateBucket(ctx context.Context, name string, public bool) error {
	c := s.Admin()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		return fmt.Errorf("CreateBucket(%s): %w", name, err)
	}
	if public {
		policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",`+
			`"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::%s","arn:aws:s3:::%s/*"]}]}`, name, name)
		if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(name), Policy: aws.String(policy)}); err != nil {
			return fmt.Errorf("PutBucketPolicy(%s): %w", name, err)
		}
	}
	return nil
}

// Put stores data under key in bucket.
func (s *Versitygw) Put(ctx context.Context, bucket, key string, data []byte) error {
	_, err := s.Admin().PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data),
	})
	if err != nil {
		return fmt.Errorf("PutObject(%s/%s): %w", bucket, key, err)
	}
	return nil
}
