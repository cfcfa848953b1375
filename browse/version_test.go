package browse

import (
	"net/url"
	"path/filepath"
	"testing"
)

// TestServeVersionAtCommitTime opens an OCDBT database at the commit time
// of one of its versions, the "@TIME" form that a path segment takes
// besides "@vN", and checks that it shows that version; a time that
// smuggles a sub-URL in is refused.
func TestServeVersionAtCommitTime(t *testing.T) {
	dir := nestDir(t)
	s := nestServer(t, dir)
	root := "file:" + filepath.ToSlash(dir)

	v3 := fetchPage(t, s, "/db.ocdbt/?versions", 200).Versions.List[2]
	p := fetchPage(t, s, "/db.ocdbt/@"+url.PathEscape(v3.Time)+"/", 200)
	var names []string
	for _, e := range p.Dir.Entries {
		names = append(names, e.Name)
	}
	if want := root + "/db.ocdbt/|ocdbt://" + v3.Time + "/"; p.Pipeline != want || len(names) != 3 {
		t.Errorf("@%s: pipeline %q, want %q; entries %v", v3.Time, p.Pipeline, want, names)
	}
	fetchPage(t, s, "/db.ocdbt/@"+url.PathEscape(v3.Time+"|zip:x")+"/", 400)
}
