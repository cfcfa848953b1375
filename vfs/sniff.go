package vfs

// HeadLen returns how many bytes from the start of a file SniffHead wants
// to see: the longest head signature of the registered file formats,
// capped at what detection ever reads.
func (g *Registry) HeadLen() int {
	head := 0
	for _, f := range g.Formats() {
		if f.Input == KindFile {
			head = max(head, f.Head, f.Offset+len(f.Magic), len(f.Hint))
		}
	}
	return min(head, maxSniff)
}

// SniffHead returns the registered file format whose signature at the
// start of a file matches head, the file's first bytes (HeadLen of them,
// or the whole file when it is shorter), or nil when none does or several
// do. A format matches by its head signature (Magic, or Match for a format
// with no Tail, seeing len(head) as the size) or by its Hint, so a zip
// matches by its first local header. It reads nothing: it is for a
// program that looks at many files, such as a deep listing, and opens only
// those that look like a container; Detect, at open, has the last word.
func (g *Registry) SniffHead(head []byte) *Format {
	var match *Format
	for _, f := range g.Formats() {
		if f.Input != KindFile || f.Magic == "" && f.Match == nil {
			continue
		}
		if !(f.Tail == 0 && f.matches(head, nil, int64(len(head)))) && (f.Hint == "" || !hasSig(head, 0, f.Hint)) {
			continue
		}
		if match != nil && match.Adapter != f.Adapter {
			return nil
		}
		match = f
	}
	return match
}
