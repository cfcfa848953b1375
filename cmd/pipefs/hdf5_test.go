package main

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// le32 encodes int32 values little endian.
func le32(vals ...int32) string {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return string(b)
}

func TestArrayHDF5(t *testing.T) {
	extra := fixture(t, "hdf5/earliest_extra.hdf5")
	v4 := fixture(t, "hdf5/chunk_index_v4.hdf5")

	out := mustRun(t, "array", v4+"|hdf5:/fill_partial")
	for _, want := range []string{"format:          hdf5", "shape:           [10 10]", "chunk shape:     [4 4] (grid [3 3])",
		"data type:       float32", "fill value:      -1.5", "hdf5 index:      fixed array", "hdf5 fill:       00 00 c0 bf"} {
		if !strings.Contains(out, want) {
			t.Errorf("array fill_partial: no %q in\n%s", want, out)
		}
	}
	out = mustRun(t, "array", v4+"|hdf5:/grown")
	if !strings.Contains(out, "hdf5 max shape:  [-1 9]") || !strings.Contains(out, "extensible array") {
		t.Errorf("array grown:\n%s", out)
	}
	out = mustRun(t, "array", v4+"|hdf5:/earray")
	if !strings.Contains(out, "hdf5 filters:    deflate (id 1, values [4])") && !strings.Contains(out, "(id 1, values [4])") {
		t.Errorf("array earray:\n%s", out)
	}

	// A file is detected as HDF5: its root group.
	out = mustRun(t, "array", extra)
	if !strings.Contains(out, "node:            group") || !strings.Contains(out, "children:        chunk_partial, compact,") {
		t.Errorf("array of the file:\n%s", out)
	}

	var js map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "array", "--json", extra+"|hdf5:/chunk_partial")), &js); err != nil {
		t.Fatal(err)
	}
	if h := js["hdf5"].(map[string]any); h["layout"] != "chunked" || h["chunk_index"] != "btree1" {
		t.Errorf("--json: %v", h)
	}

	// Big endian, read as little endian; fill where no chunk is stored.
	want := make([]int32, 36)
	for i := range want {
		want[i] = 11
		if r, c := i/6, i%6; r < 3 && c >= 3 {
			want[i] = int32(r*3 + c - 3)
		}
	}
	if got := mustRun(t, "array", "--read", extra+"|hdf5:chunk_partial"); got != le32(want...) {
		t.Errorf("--read chunk_partial: % x", got)
	}
	if got := mustRun(t, "array", "--box", "1:3,2:5", extra+"|hdf5:/chunk_partial"); got != le32(11, 3, 4, 11, 6, 7) {
		t.Errorf("--box chunk_partial: % x", got)
	}
	if got := mustRun(t, "array", "--chunk", "0,1", extra+"|hdf5:/chunk_partial"); got != le32(0, 1, 2, 3, 4, 5, 6, 7, 8) {
		t.Errorf("--chunk 0,1 chunk_partial: % x", got)
	}
	// Contiguous and compact datasets read on a grid of their own.
	if got := mustRun(t, "array", "--box", "1:2", extra+"|hdf5:/compact"); got != "\x03\x00\x04\x00\x05\x00" {
		t.Errorf("--box compact: % x", got)
	}
	if got := mustRun(t, "array", "--read", extra+"|hdf5:/contig_unwritten"); got != le32(-9, -9, -9, -9, -9, -9) {
		t.Errorf("--read contig_unwritten: % x", got)
	}
	if got := mustRun(t, "array", "--read", extra+"|hdf5:/scalar"); got != "\x00\x00\x00\x00\x00\x00\x0a\x40" {
		t.Errorf("--read scalar: % x", got)
	}
	if got := mustRun(t, "array", "--strings", extra+"|hdf5:/vlen_str"); got != `["one","twoé",""]`+"\n" {
		t.Errorf("--strings vlen_str: %q", got)
	}
	if got := mustRun(t, "array", "--strings", extra+"|hdf5:/fixed_str"); got != `["ab","cde",""]`+"\n" {
		t.Errorf("--strings fixed_str: %q", got)
	}
	r := runCLI(t, "array", "--read", extra+"|hdf5:/vlen_str")
	if r.code == 0 || !strings.Contains(r.stderr, "--strings") {
		t.Errorf("--read vlen_str: exit %d, %s", r.code, r.stderr)
	}
	r = runCLI(t, "cat", extra+"|hdf5:/vlen_str")
	if r.code == 0 || !strings.Contains(r.stderr, "pipefs array --strings") {
		t.Errorf("cat vlen_str: exit %d, %s", r.code, r.stderr)
	}
	if got := mustRun(t, "cat", extra+"|hdf5:/many/m03"); got != le32(3, -3) {
		t.Errorf("cat m03: % x", got)
	}
}
