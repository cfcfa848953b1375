package complete

import (
	"io/fs"
	"os"
)

// Local completes a local path, relative to the current directory or
// absolute, as a shell's file completion does: the entries of its
// directory whose names start with what is typed after its last "/",
// written as a pipeline needs them, a directory with a trailing "/". It
// offers no adapter.
func Local(text string) ([]string, error) {
	dir, prefix := splitDir(text, 0)
	ents, err := readLocalDir(dir)
	if err != nil {
		return nil, err
	}
	return new(Completer).list(dir, prefix, ents, true), nil
}

// readLocalDir lists the local directory dir, as typed: "" is the
// current directory.
func readLocalDir(dir string) ([]fs.DirEntry, error) {
	if dir == "" {
		dir = "."
	}
	return os.ReadDir(dir)
}
