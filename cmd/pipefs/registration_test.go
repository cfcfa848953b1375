package main

import (
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// TestLinksByRegistration checks that ls -l looks for the link an
// argument names in its parent directory only where the registry says
// that opening follows links, and that the help lists the roots the
// registry has, vendor ones too.
func TestLinksByRegistration(t *testing.T) {
	files := memroot.NewStore()
	if err := files.WriteFile("d/a.toy", []byte("TOY")); err != nil {
		t.Fatal(err)
	}
	g := fstest.ToyRegistry(files)
	for s, want := range map[string]bool{
		"memory:/d/a.toy":                   false,
		"memory:/d/a.toy|pipefs.toy:x":      false,
		"file:/d/a.toy|pipefs.toy:x":        false, // file: is not in g
		"file:/d/a.toy|pipefs.tar:x":        false,
		"memory:/d/a.toy|pipefs.unz:":       false,
		"memory:/d/repo/|pipefs.store://v1": false,
	} {
		if got := g.FollowsLinks(vfs.MustParse(s)); got != want {
			t.Errorf("%s: FollowsLinks = %v, want %v", s, got, want)
		}
	}
	if !vfs.DefaultRegistry.FollowsLinks(vfs.MustParse("file:/d/l")) || !vfs.DefaultRegistry.FollowsLinks(vfs.MustParse("file:/d/a.tar|pipefs.tar:l")) {
		t.Error("the pipefs binary's registry says that neither file: nor pipefs.tar: follows links")
	}
	help := schemeHelp(g)
	roots := helpSection(t, help, "Roots (the first sub-URL):")
	adapters := helpSection(t, help, "Adapters (every later sub-URL):")
	if roots["pipefs.vroot:"] != "a toy root" || adapters["pipefs.toy:"] != "a toy archive" || roots["pipefs.toy:"] != "" {
		t.Errorf("help of a toy registry:\n%s", help)
	}
	if strings.Contains(help, "zip:") {
		t.Errorf("help lists a scheme the registry does not have:\n%s", help)
	}
}
