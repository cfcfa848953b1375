package main

import (
	"strings"
	"testing"
)

func TestArrayStrings(t *testing.T) {
	zarr2 := fixture(t, "zarr2/data.zarr") + "/"
	zarr2zip := fixture(t, "zarr2/data.zipped_from_within.zarr.zip") + "|zip:"
	zarr3 := fixture(t, "zarr3/data.zarr") + "/"
	zarr3zip := fixture(t, "zarr3/data.zipped_from_parent.zarr.zip") + "|zip:data.zarr/"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{zarr2 + "|zarr2:3d.chunked.O"}, `["a","aa","aaa","aaaa","b","bb","bbb","bbbb"]`},
		{[]string{zarr2zip + "|zarr2:1d.contiguous.json2.O"}, `["foo","bar","baz","qux"]`},
		{[]string{zarr2 + "|zarr2:1d.contiguous.U13.be"}, `["a","b","cc","d"]`},
		{[]string{zarr3 + "|zarr3:1d.string.unicode"}, `["hello","世界","🚀🎉","Ñoño"]`},
		{[]string{zarr3zip + "|zarr3:1d.string.empty"}, `["","test",""]`},
		{[]string{"--box", "1,0:1", zarr3 + "|zarr3:2d.chunked.string.vlen"}, `["foo"]`},
		{[]string{"--box", "0:2,1", zarr2 + "|zarr2:3d.chunked.O"}, `["aaa","aaaa","bbb","bbbb"]`},
	} {
		args := append([]string{"array", "--strings"}, tc.args...)
		if got := mustRun(t, args...); got != tc.want+"\n" {
			t.Errorf("%s = %q, want %q", strings.Join(args, " "), got, tc.want)
		}
	}
	for _, bad := range [][]string{
		{"--strings", "--read", zarr3 + "|zarr3:1d.string.empty"},
		{"--strings", "--chunk", "0", zarr3 + "|zarr3:1d.string.empty"},
		{"--strings", "--box", "0:9", zarr3 + "|zarr3:1d.string.empty"},
	} {
		if r := runCLI(t, append([]string{"array"}, bad...)...); r.code != 2 {
			t.Errorf("array %s: exit %d, want 2", strings.Join(bad, " "), r.code)
		}
	}
	if r := runCLI(t, "array", "--strings", zarr3+"|zarr3:1d.contiguous.i4"); r.code != 1 || !strings.Contains(r.stderr, "not strings") {
		t.Errorf("--strings on int32: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "array", "--strings", "--limit", "40", zarr3+"|zarr3:1d.string.unicode"); r.code != 1 || !strings.Contains(r.stderr, "limit") {
		t.Errorf("--strings past --limit: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "array", "--read", zarr3+"|zarr3:1d.string.unicode"); r.code != 1 || !strings.Contains(r.stderr, "--strings") {
		t.Errorf("--read on strings: exit %d, stderr %q", r.code, r.stderr)
	}
}
