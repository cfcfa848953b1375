package blobread

import "io"

// Watch returns rc with every error of its Read and WriteTo passed through
// note, which may note it (a blob that found its data corrupt keeps no
// index) and returns the error to give. WriteTo is rc's own when rc has
// one, so that a stream that decodes on two cores in its WriteTo keeps
// doing so.
func Watch(rc io.ReadCloser, note func(error) error) io.ReadCloser {
	return &watched{rc, note}
}

type watched struct {
	io.ReadCloser
	note func(error) error
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	return n, w.note(err)
}

func (w *watched) WriteTo(dst io.Writer) (int64, error) {
	wt, ok := w.ReadCloser.(io.WriterTo)
	if !ok {
		return io.Copy(dst, struct{ io.Reader }{w})
	}
	n, err := wt.WriteTo(dst)
	return n, w.note(err)
}
