package explain

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// report returns a report of a zip member over http: with its numbers
// fixed, read to its end.
func report() *Report {
	size, member, read := int64(1536000), int64(5), int64(5)
	open0 := Cost{Seconds: 0.000015}
	open1 := Cost{Seconds: 0.0123456, Requests: 1, BytesFetched: 65536, CacheMisses: 1}
	r := Cost{Seconds: 0.0000014, Requests: 0, CacheHits: 2}
	return &Report{
		Pipeline: "https://example.com/a%20b.zip|zip:d/r%C3%A9sum%C3%A9.txt",
		Kind:     "file",
		Counted:  true,
		Stages: []Stage{
			{Index: 0, SubURL: "https://example.com/a%20b.zip", Scheme: "https", Kind: "file", Size: &size, Format: "HTTP(S) resource", Open: open0},
			{Index: 1, SubURL: "zip:d/r%C3%A9sum%C3%A9.txt", Scheme: "zip", Kind: "file", Size: &member, Format: "zip archive", Open: open1},
		},
		Open:  open0.Plus(open1),
		Read:  &Read{Cost: r, BytesRead: &read},
		Total: open0.Plus(open1).Plus(r),
	}
}

// TestPrintFields checks the tab-separated form, field by field.
func TestPrintFields(t *testing.T) {
	var b strings.Builder
	if err := report().Print(&b, false); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"#\tSUB-URL\tSCHEME\tORIGIN\tKIND\tSIZE\tTIME\tREQUESTS\tFETCHED\tHITS\tMISSES\tFORMAT",
		"0\thttps://example.com/a%20b.zip\thttps\twritten\tfile\t1536000\t15µs\t0\t0\t0\t0\tHTTP(S) resource",
		"1\tzip:d/r%C3%A9sum%C3%A9.txt\tzip\twritten\tfile\t5\t12.3ms\t1\t65536\t0\t1\tzip archive",
		"read\tread to the end\t\t\tfile\t5\t1µs\t0\t0\t2\t0\t",
		"total\thttps://example.com/a%20b.zip|zip:d/r%C3%A9sum%C3%A9.txt\t\t\tfile\t\t12.4ms\t1\t65536\t2\t1\t",
		"",
	}, "\n")
	if b.String() != want {
		t.Errorf("Print:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestPrintUncounted checks that costs no layer counts print as "-", and
// a listing, detected layers and directories as they should.
func TestPrintUncounted(t *testing.T) {
	size := int64(100)
	for _, n := range []int{1, 3} {
		entries := n
		rep := &Report{
			Pipeline: "s3://b/a.zip|zip:",
			Kind:     "directory",
			Stages: []Stage{
				{Index: 0, SubURL: "s3://b/a.zip", Scheme: "s3", Kind: "file", Size: &size, Format: "S3 object"},
				{Index: 1, SubURL: "zip:", Scheme: "zip", Detected: true, Kind: "directory", Format: "zip archive", Open: Cost{Seconds: 2.5}},
			},
			Read:  &Read{Entries: &entries},
			Open:  Cost{Seconds: 2.5},
			Total: Cost{Seconds: 2.5},
		}
		listed := map[int]string{1: "listed 1 entry", 3: "listed 3 entries"}[n]
		var b strings.Builder
		if err := rep.Print(&b, false); err != nil {
			t.Fatal(err)
		}
		want := strings.Join([]string{
			"#\tSUB-URL\tSCHEME\tORIGIN\tKIND\tSIZE\tTIME\tREQUESTS\tFETCHED\tHITS\tMISSES\tFORMAT",
			"0\ts3://b/a.zip\ts3\twritten\tfile\t100\t0s\t-\t-\t-\t-\tS3 object",
			"1\tzip:\tzip\tdetected\tdirectory\t-\t2.5s\t-\t-\t-\t-\tzip archive",
			"read\t" + listed + "\t\t\tdirectory\t-\t0s\t-\t-\t-\t-\t",
			"total\ts3://b/a.zip|zip:\t\t\tdirectory\t\t2.5s\t-\t-\t-\t-\t",
			"",
		}, "\n")
		if b.String() != want {
			t.Errorf("Print of %d entries:\n%q\nwant\n%q", n, b.String(), want)
		}

		b.Reset()
		if err := rep.Print(&b, true); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		if lines[0] != "s3://b/a.zip|zip:, a directory" {
			t.Errorf("the line above the table = %q", lines[0])
		}
		if len(lines) != 7 || !strings.Contains(lines[2], " s3://b/a.zip ") || !strings.HasPrefix(strings.Join(strings.Fields(lines[3]), " "), "1 zip: (detected) dir ") ||
			!strings.Contains(lines[4], listed) || !strings.HasPrefix(lines[5], "total") || len(strings.Fields(lines[5])) != 7 || strings.Count(lines[5], "-") != 4 {
			t.Errorf("table:\n%s", b.String())
		}
	}
}

// TestPrintTable checks the terminal form: the pipeline as typed, then
// the table, aligned, within Width columns.
func TestPrintTable(t *testing.T) {
	var b strings.Builder
	if err := report().Print(&b, true); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"https://example.com/a b.zip|zip:d/résumé.txt, a file",
		"#      SUB-URL                      KIND  SIZE    TIME  REQS  BYTES  HITS  MISS  FORMAT",
		"0      https://example.com/a b.zip  file  1.5M    15µs     0      0     0     0  HTTP(S) resource",
		"1      zip:d/résumé.txt             file     5  12.3ms     1    64K     0     1  zip archive",
		"read   read to the end              file     5     1µs     0      0     2     0",
		"total                               file        12.4ms     1    64K     2     1",
		"",
	}, "\n")
	if b.String() != want {
		t.Errorf("Print on a terminal:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestJSON checks the JSON object: its keys, in order, and a size
// unknown as null.
func TestJSON(t *testing.T) {
	rep := report()
	rep.Stages[1].Size = nil
	got, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"pipeline":"https://example.com/a%20b.zip|zip:d/r%C3%A9sum%C3%A9.txt","kind":"file","counted":true,"stages":[` +
		`{"index":0,"sub_url":"https://example.com/a%20b.zip","scheme":"https","detected":false,"kind":"file","size":1536000,"format":"HTTP(S) resource",` +
		`"open":{"seconds":0.000015,"requests":0,"bytes_fetched":0,"cache_hits":0,"cache_misses":0}},` +
		`{"index":1,"sub_url":"zip:d/r%C3%A9sum%C3%A9.txt","scheme":"zip","detected":false,"kind":"file","size":null,"format":"zip archive",` +
		`"open":{"seconds":0.0123456,"requests":1,"bytes_fetched":65536,"cache_hits":0,"cache_misses":1}}],` +
		`"open":{"seconds":0.0123606,"requests":1,"bytes_fetched":65536,"cache_hits":0,"cache_misses":1},` +
		`"read":{"seconds":0.0000014,"requests":0,"bytes_fetched":0,"cache_hits":2,"cache_misses":0,"bytes_read":5},` +
		`"total":{"seconds":0.012362,"requests":1,"bytes_fetched":65536,"cache_hits":2,"cache_misses":1}}`
	if string(got) != want {
		t.Errorf("JSON:\n%s\nwant\n%s", got, want)
	}
	var back Report
	if err := json.Unmarshal(got, &back); err != nil || back.Stages[1].Size != nil || back.Read == nil || *back.Read.BytesRead != 5 {
		t.Errorf("the JSON does not read back: %v, %+v", err, back)
	}
}

// TestFormatSeconds checks durations to three significant digits, or to
// the microsecond.
func TestFormatSeconds(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{400 * time.Nanosecond, "0s"},
		{1500 * time.Nanosecond, "2µs"},
		{15 * time.Microsecond, "15µs"},
		{999 * time.Microsecond, "999µs"},
		{1234567 * time.Nanosecond, "1.23ms"},
		{2500 * time.Millisecond, "2.5s"},
		{75 * time.Second, "1m15s"},
	} {
		if got := formatSeconds(c.d.Seconds()); got != c.want {
			t.Errorf("formatSeconds(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
