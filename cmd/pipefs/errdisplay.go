package main

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/pipefs/pipefs/internal/optflags"
	"github.com/pipefs/pipefs/vfs"
)

// displayPipeline rewrites s, the text of err, to name the pipeline of
// the first *fs.PathError in err as people type it (vfs.Pipeline.Display:
// "zip:odd names" rather than "zip:odd%20names"), with the canonical
// pipeline alongside: "open file:/d/a.zip|zip:odd names/x (canonical
// file:/d/a.zip|zip:odd%20names/x): ...". Text whose pipeline displays as
// it is written, or that names no pipeline, is returned unchanged.
func displayPipeline(err error, s string) string {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return s
	}
	// A path that is a name in a tree ("c:a%20b" in a zip) is shown as
	// it is: only a pipeline whose root scheme is known is rewritten.
	p, perr := vfs.Parse(pe.Path)
	if perr != nil || p[0].Kind() == vfs.KindUnknown {
		return s
	}
	shown := p.Display()
	if shown == pe.Path {
		return s
	}
	head := pe.Op + " " + pe.Path + ": "
	i := strings.Index(s, head)
	if i < 0 {
		return s
	}
	return s[:i] + pe.Op + " " + shown + " (canonical " + pe.Path + "): " + s[i+len(head):]
}

// message is the text the CLI prints for err: the pipeline it names shown
// as people type it (displayPipeline), and for a limit error how to lift
// the limit it names (optflags.LiftAdvice).
func message(err error) string {
	return displayPipeline(err, err.Error()) + optflags.LiftAdvice(err)
}
