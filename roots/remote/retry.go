package remote

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// Retry bounds retries. Zero fields mean the defaults.
type Retry struct {
	MaxAttempts int           // attempts in all, default 5; 1 means no retry
	BaseDelay   time.Duration // first backoff, default 100ms
	MaxDelay    time.Duration // backoff cap, default 5s
}

// RetryableError marks a transient failure.
type RetryableError struct {
	Err   error
	After time.Duration // the server's Retry-After, 0 when none
}

// Error returns the message of the failure.
func (e *RetryableError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *RetryableError) Unwrap() error { return e.Err }

// Retryable marks err as transient; after is the server's Retry-After.
func Retryable(err error, after time.Duration) error {
	return &RetryableError{Err: err, After: after}
}

// IsRetryable reports whether err is worth another attempt: marked by a
// backend, a network timeout, a reset or refused connection, or a body cut
// short.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var re *RetryableError
	if errors.As(err, &re) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Do runs f until it succeeds, fails for good, or the attempts run out,
// sleeping with jittered exponential backoff between attempts (or the
// server's Retry-After, capped at MaxDelay). It returns at once when ctx is
// done.
func (r Retry) Do(ctx context.Context, f func() error) error {
	var attempts int
	return r.do(ctx, &attempts, f)
}

// do is Do with the count of attempts made so far kept by the caller, so
// that several rounds of one operation (a body resumed after a break)
// share one bound.
func (r Retry) do(ctx context.Context, attempts *int, f func() error) error {
	r = r.WithDefaults()
	delay := r.BaseDelay
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		*attempts++
		err := f()
		if err == nil || !IsRetryable(err) || *attempts >= r.MaxAttempts {
			return err
		}
		wait := delay/2 + rand.N(delay/2+1) // jitter in [delay/2, delay]
		var re *RetryableError
		if errors.As(err, &re) && re.After > 0 {
			wait = min(re.After, r.MaxDelay)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, r.MaxDelay)
	}
}

func (r Retry) WithDefaults() Retry {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 5
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = 100 * time.Millisecond
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = 5 * time.Second
	}
	return r
}

// RetryAfter returns the wait that an HTTP Retry-After header asks for:
// its value h is a number of seconds or an HTTP date. It returns 0 when h
// is empty or malformed, or the date is past.
func RetryAfter(h http.Header) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
