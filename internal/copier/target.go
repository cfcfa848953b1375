package copier

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A treeRecord is the record of a tree copy that Resume keeps beside the
// copy, as COPY+SourceSuffix, while it runs: what the copy is a copy of.
// Its key differs from that of a file's record, so that neither is read
// as the other.
type treeRecord struct {
	Tree string `json:"tree"` // the tree's pipeline
}

// treeRecordPath returns the name of the record of a tree copied to the
// local directory dst: beside it, or "" when copy has no name to put one
// beside (the root directory).
func treeRecordPath(dst string) string {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return ""
	}
	dir, base := filepath.Split(abs)
	if base == "" || dir == "" {
		return ""
	}
	return abs + SourceSuffix
}

// recordsTree reports whether the record at name is that of a copy of the
// tree url.
func recordsTree(name, url string) bool {
	if name == "" {
		return false
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	var r treeRecord
	return json.Unmarshal(b, &r) == nil && r.Tree == url
}

// writeTreeRecord writes the record of a copy of the tree url at name.
func writeTreeRecord(name, url string) error {
	b, err := json.Marshal(treeRecord{Tree: url})
	if err != nil {
		return err
	}
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

// resumesInDest decides where a tree resumed into the existing directory
// dest goes: dest itself (true) or dest/name (false). See the package
// documentation for the rule; url is the tree's pipeline and items its
// entries.
func resumesInDest(dest, name, url string, items []item) bool {
	named := filepath.Join(dest, name)
	switch {
	case recordsTree(treeRecordPath(named), url):
		return false
	case recordsTree(treeRecordPath(dest), url):
		return true
	}
	top := topLevel(items)
	switch {
	case matchesTop(named, top):
		return false
	case matchesTop(dest, top):
		return true
	}
	return false
}

// topLevel returns the types of the entries at the top of a tree, by
// name.
func topLevel(items []item) map[string]fs.FileMode {
	top := make(map[string]fs.FileMode)
	for _, it := range items {
		if it.name != "." && !strings.Contains(it.name, "/") {
			top[it.name] = it.info.Mode().Type()
		}
	}
	return top
}

// matchesTop reports whether the local directory dir holds at least one
// entry and only entries of a tree's top level (top): each named as one
// of them and of its type, or the partial copy or record of a regular
// file there.
func matchesTop(dir string, top map[string]fs.FileMode) bool {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) == 0 {
		return false
	}
	for _, e := range ents {
		name := e.Name()
		if t, ok := top[name]; ok && t == e.Type() {
			continue
		}
		base, partial := strings.CutSuffix(name, PartialSuffix)
		if !partial {
			base, partial = strings.CutSuffix(name, SourceSuffix)
		}
		if t, ok := top[base]; partial && ok && t.IsRegular() {
			continue
		}
		return false
	}
	return true
}
