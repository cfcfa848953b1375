package vfs

// TEMPORARY stubs, replaced by the grammar implementation.

// Parse parses and canonicalises an absolute pipeline.
func Parse(s string) (Pipeline, error) {
	return nil, &SyntaxError{Input: s, Index: -1, Msg: "not implemented"}
}

// Resolve resolves ref, a relative or absolute pipeline, against p.
func (p Pipeline) Resolve(ref string) (Pipeline, error) {
	return nil, &SyntaxError{Input: ref, Index: -1, Msg: "not implemented"}
}

// DecodedPath returns the percent-decoded path.
func (u SubURL) DecodedPath() string { return u.Path }

// Key returns the fs name (fs.ValidPath) the path names inside the stage's tree.
func (u SubURL) Key() string { return "." }

// Join returns u with the fs name appended to its path.
func (u SubURL) Join(name string) SubURL { return u }

// IsDir reports whether u's path is empty or ends in "/".
func (u SubURL) IsDir() bool { return u.Path == "" }


func (p Pipeline) Append(u ...SubURL) Pipeline { return append(p[:len(p):len(p)], u...) }
