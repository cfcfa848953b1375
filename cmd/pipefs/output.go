package main

import (
	"bufio"
	"io"
)

// An output is standard output as commands write to it: buffered when it
// is not a terminal, so that a listing of 200,000 names costs a few
// writes instead of one system call each, and written through at once to
// a terminal, where a user watches it. run flushes it when the command
// ends.
type output struct {
	w   io.Writer     // the destination
	buf *bufio.Writer // nil when writing through, to a terminal
}

// outputBuffer is the size of the buffer of a non-terminal output.
const outputBuffer = 64 << 10

func newOutput(w io.Writer) *output {
	o := &output{w: w}
	if !isTerminal(w) {
		o.buf = bufio.NewWriterSize(w, outputBuffer)
	}
	return o
}

func (o *output) Write(p []byte) (int, error) {
	if o.buf == nil {
		return o.w.Write(p)
	}
	return o.buf.Write(p)
}

// ReadFrom copies r to the output; bufio.Writer passes large copies (cat)
// straight to the destination once its buffer is empty.
func (o *output) ReadFrom(r io.Reader) (int64, error) {
	if o.buf == nil {
		return io.Copy(o.w, r)
	}
	return o.buf.ReadFrom(r)
}

// Flush writes what is buffered.
func (o *output) Flush() error {
	if o.buf == nil {
		return nil
	}
	return o.buf.Flush()
}

// terminal reports whether the output is a terminal.
func (o *output) terminal() bool { return o.buf == nil }

// WriteString writes s with no copy to a []byte first, as io.WriteString
// would make for each line of a listing.
func (o *output) WriteString(s string) (int, error) {
	if o.buf == nil {
		return io.WriteString(o.w, s)
	}
	return o.buf.WriteString(s)
}
