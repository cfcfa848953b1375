// Package cloudtest starts the cloud storage servers that pipefs's tests
// read from: versitygw, a real S3 server with a posix backend, and
// fake-gcs-server's emulator of Google Cloud Storage. Both run on
// loopback, and requests to them can go through a Counter, a reverse
// proxy that records what the server saw, can hold each request back for
// a latency, and counts the most requests under way at once.
//
// versitygw is a program. Versitygw finds it at $PIPEFS_VERSITYGW (CI
// builds it there, so a missing one is a failure: see Required), else in
// the user's cache directory, where it is built once from the module's
// tools/ directory. The GCS emulator runs in process.
package cloudtest
