package jsonadapter_test

import (
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestConformanceFile runs the file checks of the conformance kit on
// values that json: yields: the whole document, an object, an array, a
// string with escapes, a number, a literal, and a value of many kilobytes.
func TestConformanceFile(t *testing.T) {
	long := `"` + strings.Repeat(`text \"quoted\" \u00e9 `, 2000) + `"`
	document := `{"obj": {"a": [1, 2, {"b": null}], "s": "x\ty"}, "arr": [true, false, 1.5e3], "long": ` + long + `, "": 0}`
	prefix := fstest.MapFiles(t, map[string][]byte{"d.json": []byte(document)})
	for _, c := range []struct{ pointer, want string }{
		{"", document},
		{"/obj", `{"a": [1, 2, {"b": null}], "s": "x\ty"}`},
		{"/obj/a", `[1, 2, {"b": null}]`},
		{"/obj/s", `"x\ty"`},
		{"/arr/2", "1.5e3"},
		{"/arr/0", "true"},
		{"/long", long},
		{"/", "0"},
	} {
		t.Run("pointer="+c.pointer, func(t *testing.T) {
			fstest.RunFile(t, fstest.FileCase{Pipeline: "memory:/" + prefix + "/d.json|json:" + c.pointer, Data: []byte(c.want)})
		})
	}
}
