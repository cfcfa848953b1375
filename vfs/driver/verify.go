package driver

import "context"

// Verification: a decoder whose format carries checksums (gzip's CRC-32
// per member, a zstd frame's content checksum, bzip2's and xz's block
// checks, a zip member's CRC-32) returns the bytes of a ReadAt only once a
// check vouches for them: it decodes on from where the read stops to the
// next check, and a read that fails its check returns no bytes and an
// error matching ErrCorrupt. What each format checks, and when, is in its
// package documentation.
//
// A read made with a context from Unverified is exempt: it only looks at
// bytes to choose what to do (format detection sniffing the start of a
// decompressed stream), so the decoder returns them without decoding on
// to a check. A check the read itself reaches still fails it. Nothing
// read this way may reach a caller as file content.

type unverifiedKey struct{}

// Unverified returns a context whose reads are exempt from decoding on to
// a check (see above).
func Unverified(ctx context.Context) context.Context {
	return context.WithValue(ctx, unverifiedKey{}, true)
}

// IsUnverified reports whether ctx comes from Unverified.
func IsUnverified(ctx context.Context) bool {
	v, _ := ctx.Value(unverifiedKey{}).(bool)
	return v
}
