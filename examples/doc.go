// Package examples holds small runnable programs that use pipefs with the
// standard library, one in each directory:
//
//   - serve: http.FileServerFS over a pipeline
//   - browse: the handler of package browse over a pipeline, pages that
//     step into nested archives, as pipefs serve shows them
//   - walk: fs.WalkDir and fs.Glob over a pipeline
//   - templates: html/template.ParseFS over templates in a zip
//   - cat: io.Copy of a file inside nested zips
//   - localzip: fs.ReadFile of files in a local zip, in a program that
//     imports only package pipefs and so no remote root
//
// Run them from the repository root, for example
//
//	go run ./examples/cat "file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:deep.zip|zip:hello.txt"
//
// This package has no code of its own; its test builds every example and
// runs them against testdata/demo.zip, and checks with go list -deps that
// localzip, and package pipefs, depend on no cloud SDK and no HTTP client.
package examples
