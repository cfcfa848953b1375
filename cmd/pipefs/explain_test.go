package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/explain"
	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/vfs"
)

// explainJSON runs explain --json with args and decodes its report.
func explainJSON(t *testing.T, args ...string) *explain.Report {
	t.Helper()
	out := mustRun(t, append([]string{"explain", "--json"}, args...)...)
	var rep explain.Report
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("explain --json %q: %v\n%s", args, err, out)
	}
	return &rep
}

// wantRow is what a test expects of one row of explain.
type wantRow struct {
	subURL   string
	detected bool
	kind     string
}

// checkLayers checks the layers of rep and that its costs add up: the
// total is the open plus the read, the open the sum of the layers.
func checkLayers(t *testing.T, rep *explain.Report, want []wantRow) {
	t.Helper()
	if len(rep.Stages) != len(want) {
		t.Fatalf("explain: %d layers %+v, want %d %+v", len(rep.Stages), rep.Stages, len(want), want)
	}
	var open explain.Cost
	for i, s := range rep.Stages {
		if got := (wantRow{s.SubURL, s.Detected, s.Kind}); got != want[i] || s.Index != i {
			t.Errorf("layer %d = %d %+v, want %+v", i, s.Index, got, want[i])
		}
		if s.Scheme == "" || !strings.HasPrefix(s.SubURL, s.Scheme+":") || s.Format == "" {
			t.Errorf("layer %d: scheme %q, format %q", i, s.Scheme, s.Format)
		}
		open = open.Plus(s.Open)
	}
	open.Seconds, rep.Open.Seconds = 0, 0 // float sums need not be equal
	if open != rep.Open {
		t.Errorf("open = %+v, want the sum of the layers, %+v", rep.Open, open)
	}
	total := rep.Open
	if rep.Read != nil {
		total = total.Plus(rep.Read.Cost)
	}
	total.Seconds, rep.Total.Seconds = 0, 0
	if total != rep.Total {
		t.Errorf("total = %+v, want open + read, %+v", rep.Total, total)
	}
}

// checkServer checks that the total explain reports is what srv served.
func checkServer(t *testing.T, rep *explain.Report, srv *fstest.HTTPServer) {
	t.Helper()
	if !rep.Counted || rep.Total.Requests != srv.Requests() || rep.Total.BytesFetched != srv.Bytes() {
		t.Errorf("explain counted %v: %d requests, %d bytes; the server served %d requests, %d bytes:\n%s",
			rep.Counted, rep.Total.Requests, rep.Total.BytesFetched, srv.Requests(), srv.Bytes(), srv.LogString())
	}
}

// TestExplainRemoteZipMember explains a member of a remote zip: no layer
// is detected, the root's open costs nothing, the zip layer the one
// request that reads the archive's end, and reading the small member
// nothing more. What explain counts is what the server served.
func TestExplainRemoteZipMember(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"site.zip": fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello"), "d/b.txt": []byte("bee")}, 0),
	})
	url := srv.URL() + "/site.zip|zip:d/b.txt"
	rep := explainJSON(t, "--read", url)
	checkLayers(t, rep, []wantRow{
		{srv.URL() + "/site.zip", false, "file"},
		{"zip:d/b.txt", false, "file"},
	})
	checkServer(t, rep, srv)
	if rep.Pipeline != url || rep.Kind != "file" {
		t.Errorf("explain opened %s %q, want the file %q", rep.Kind, rep.Pipeline, url)
	}
	if s := rep.Stages; s[0].Open.Requests != 0 || s[1].Open.Requests != 1 || s[1].Open.BytesFetched != srv.Bytes() {
		t.Errorf("layer costs %+v, %+v; want 0 requests, then 1 request of %d bytes", s[0].Open, s[1].Open, srv.Bytes())
	}
	if r := rep.Read; r == nil || r.BytesRead == nil || *r.BytesRead != 3 || r.Entries != nil || r.Requests != 0 {
		t.Errorf("read = %+v, want 3 bytes read and no request", r)
	}
	if s := rep.Stages; s[0].Size == nil || *s[0].Size != srv.Bytes() || s[1].Size == nil || *s[1].Size != 3 {
		t.Errorf("sizes %v, %v; want %d and 3", s[0].Size, s[1].Size, srv.Bytes())
	}
}

// TestExplainNestedZip explains a member of a zip inside a remote zip
// whose end the first request does not reach: the inner zip's layer
// reports the request that reads the inner archive.
func TestExplainNestedZip(t *testing.T) {
	inner := fstest.ZipBytes(map[string][]byte{"deep/hello.txt": []byte("hello, world\n")}, 0)
	noise := make([]byte, 256<<10) // stored after the inner zip, past the first read
	rand.NewChaCha8([32]byte{3, 4}).Read(noise)
	outer := fstest.ZipBytesFunc(map[string][]byte{"a/inner.zip": inner, "z/noise.bin": noise}, func(string) uint16 { return 0 })
	srv := fstest.NewHTTPServer(t, map[string][]byte{"outer.zip": outer})
	url := srv.URL() + "/outer.zip|zip:a/inner.zip|zip:deep/hello.txt"

	rep := explainJSON(t, "--read", url)
	checkLayers(t, rep, []wantRow{
		{srv.URL() + "/outer.zip", false, "file"},
		{"zip:a/inner.zip", false, "file"},
		{"zip:deep/hello.txt", false, "file"},
	})
	checkServer(t, rep, srv)
	if s := rep.Stages; s[1].Open.Requests != 1 || s[2].Open.Requests == 0 {
		t.Errorf("the outer zip's open cost %d requests, the inner's %d; want 1 and some:\n%s",
			s[1].Open.Requests, s[2].Open.Requests, srv.LogString())
	}
	if r := rep.Read; r == nil || r.BytesRead == nil || *r.BytesRead != int64(len("hello, world\n")) {
		t.Errorf("read = %+v", r)
	}
}

// TestExplainRemoteTarGz explains a remote tar.gz, which opens as a
// directory through two detected layers, and lists it.
func TestExplainRemoteTarGz(t *testing.T) {
	data, files := tarGz(t, 16, 16<<10)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.tar.gz": data})
	url := srv.URL() + "/a.tar.gz"

	rep := explainJSON(t, "--cache-dir=off", "--read", url)
	checkLayers(t, rep, []wantRow{
		{url, false, "file"},
		{"gzip:", true, "file"},
		{"pipefs.tar:", true, "directory"},
	})
	checkServer(t, rep, srv)
	if want := url + "|gzip:|pipefs.tar:"; rep.Pipeline != want || rep.Kind != "directory" {
		t.Errorf("explain opened %s %q, want the directory %q", rep.Kind, rep.Pipeline, want)
	}
	if rep.Total.Requests < 2 || rep.Total.BytesFetched < int64(len(data)) {
		t.Errorf("listing a %d-byte tar.gz cost %d requests, %d bytes", len(data), rep.Total.Requests, rep.Total.BytesFetched)
	}
	dirs := map[string]bool{}
	for name := range files {
		dirs[strings.SplitN(name, "/", 2)[0]] = true
	}
	if r := rep.Read; r == nil || r.Entries == nil || *r.Entries != len(dirs) || r.BytesRead != nil {
		t.Errorf("read = %+v, want %d entries listed", r, len(dirs))
	}
	// The stream has been decoded to its end: its size is known.
	if s := rep.Stages[1].Size; s == nil || *s <= int64(len(data)) {
		t.Errorf("size of the gzip layer = %v", s)
	}
	if s := rep.Stages[2].Size; s != nil {
		t.Errorf("size of the directory = %d, want null", *s)
	}
}

// TestExplainJSONTypes checks the JSON keys and their types, as a script
// sees them.
func TestExplainJSONTypes(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"site.zip": fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello")}, 0),
	})
	out := mustRun(t, "explain", "--json", "--read", srv.URL()+"/site.zip")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	isCost := func(what string, v any) {
		t.Helper()
		c, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s = %#v, want an object", what, v)
		}
		for _, k := range []string{"seconds", "requests", "bytes_fetched", "cache_hits", "cache_misses"} {
			if _, ok := c[k].(float64); !ok {
				t.Errorf("%s.%s = %#v, want a number", what, k, c[k])
			}
		}
		if s, _ := c["seconds"].(float64); s < 0 || s > 3600 {
			t.Errorf("%s.seconds = %v, want seconds", what, s)
		}
	}
	if s, _ := m["pipeline"].(string); s != srv.URL()+"/site.zip|zip:" {
		t.Errorf("pipeline = %#v", m["pipeline"])
	}
	if m["kind"] != "directory" || m["counted"] != true {
		t.Errorf("kind = %#v, counted = %#v", m["kind"], m["counted"])
	}
	isCost("open", m["open"])
	isCost("read", m["read"])
	isCost("total", m["total"])
	if n, ok := m["read"].(map[string]any)["entries"].(float64); !ok || n != 1 {
		t.Errorf("read.entries = %#v, want 1", m["read"].(map[string]any)["entries"])
	}
	stages, _ := m["stages"].([]any)
	if len(stages) != 2 {
		t.Fatalf("stages = %#v, want 2", m["stages"])
	}
	for i, v := range stages {
		s := v.(map[string]any)
		if n, ok := s["index"].(float64); !ok || int(n) != i {
			t.Errorf("stages[%d].index = %#v", i, s["index"])
		}
		for _, k := range []string{"sub_url", "scheme", "kind", "format"} {
			if _, ok := s[k].(string); !ok {
				t.Errorf("stages[%d].%s = %#v, want a string", i, k, s[k])
			}
		}
		if d, ok := s["detected"].(bool); !ok || d != (i == 1) {
			t.Errorf("stages[%d].detected = %#v, want %v", i, s["detected"], i == 1)
		}
		isCost("stages["+strconv.Itoa(i)+"].open", s["open"])
	}
	if size, ok := stages[0].(map[string]any)["size"].(float64); !ok || size <= 0 {
		t.Errorf("stages[0].size = %#v, want a number", stages[0].(map[string]any)["size"])
	}
	if size, ok := stages[1].(map[string]any)["size"]; !ok || size != nil {
		t.Errorf("stages[1].size = %#v, want null", size)
	}
}

// TestExplainLocal explains a local zip in the plain form: tab-separated
// fields, a row per layer; a local file counts its reads as requests and
// the bytes they read as fetched.
func TestExplainLocal(t *testing.T) {
	data := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello"), "b.txt": []byte("bee")}, 0)
	name := filepath.Join(t.TempDir(), "a b.zip")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "explain", "--read", name)
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rows = append(rows, strings.Split(line, "\t"))
	}
	root := "file:" + strings.ReplaceAll(filepath.ToSlash(name), " ", "%20")
	want := [][]string{
		{"#", "SUB-URL", "SCHEME", "ORIGIN", "KIND", "SIZE", "TIME", "REQUESTS", "FETCHED", "HITS", "MISSES", "FORMAT"},
		{"0", root, "file", "written", "file", strconv.Itoa(len(data)), "*", "0", "0", "0", "0", "local file or directory"},
		{"1", "zip:", "zip", "detected", "directory", "-", "*", "n", "n", "0", "0", "zip archive"},
		{"read", "listed 2 entries", "", "", "directory", "-", "*", "0", "0", "0", "0", ""},
		{"total", root + "|zip:", "", "", "directory", "", "*", "n", "n", "0", "0", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("explain printed %d rows, want %d:\n%s", len(rows), len(want), out)
	}
	for i := range want {
		if len(rows[i]) != len(want[i]) {
			t.Errorf("row %d = %q, want %q", i, rows[i], want[i])
			continue
		}
		for j := range want[i] {
			if want[i][j] == "n" { // the reads of the zip's directory
				if n, err := strconv.Atoi(rows[i][j]); err != nil || n <= 0 || n > 4*len(data) {
					t.Errorf("row %d, %s = %q, want a count of reads or bytes", i, want[0][j], rows[i][j])
				}
				continue
			}
			if want[i][j] == "*" {
				if !strings.HasSuffix(rows[i][j], "s") {
					t.Errorf("row %d, %s = %q, want a duration", i, want[0][j], rows[i][j])
				}
				continue
			}
			if rows[i][j] != want[i][j] {
				t.Errorf("row %d, %s = %q, want %q", i, want[0][j], rows[i][j], want[i][j])
			}
		}
	}

	// A local file that is no container is the file itself.
	text := filepath.Join(t.TempDir(), "t.txt")
	if err := os.WriteFile(text, []byte("plain"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := explainJSON(t, "--read", text)
	checkLayers(t, rep, []wantRow{{"file:" + filepath.ToSlash(text), false, "file"}})
	if !rep.Counted || rep.Read == nil || rep.Read.BytesRead == nil || *rep.Read.BytesRead != 5 ||
		rep.Read.Requests == 0 || rep.Read.BytesFetched != 5 {
		t.Errorf("explain of a local text file: counted %v, read %+v", rep.Counted, rep.Read)
	}
}

// explainScreen runs explain --read arg on a real terminal, a tmux pane
// 100 columns wide, and returns the line above the table and the table's
// lines (the header, the rows to "total"), trailing padding removed.
func explainScreen(t *testing.T, arg string) (first string, table []string) {
	t.Helper()
	term := newTerminal(t, 100, 20)
	term.start(t, cliLine(t, "explain", "--read", arg))
	screen := term.wait(t) // wrapped lines joined: a line wider than the pane shows whole
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ") // the pane pads lines
		if strings.HasPrefix(l, "#  ") && strings.Contains(l, "SUB-URL") || len(table) > 0 {
			if len(table) == 0 && i > 0 {
				first = strings.TrimRight(lines[i-1], " ")
			}
			table = append(table, l)
		}
		if strings.HasPrefix(l, "total") {
			break
		}
	}
	for _, l := range append([]string{first}, table...) {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("a line of %d columns, wider than 100:\n%s", n, l)
		}
		if strings.ContainsAny(l, "\t") {
			t.Errorf("a tab on the terminal: %q", l)
		}
	}
	return first, table
}

// TestExplainTerminalTable runs explain on a real terminal, a tmux pane,
// and reads the screen back: the pipeline on a line of its own, then rows
// aligned in columns, with no tabs and no trailing spaces, sizes as ls -h
// writes them, within 100 columns.
func TestExplainTerminalTable(t *testing.T) {
	zip := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello"), "pad.bin": make([]byte, 3000)}, 0)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"site.zip": zip})
	first, table := explainScreen(t, srv.URL()+"/site.zip")
	if want := srv.URL() + "/site.zip|zip:, a directory"; first != want {
		t.Errorf("the line above the table = %q, want %q", first, want)
	}
	if len(table) != 5 || !strings.HasPrefix(table[4], "total ") {
		t.Fatalf("the terminal shows %d rows, want a header, 2 layers, read and total:\n%s", len(table), strings.Join(table, "\n"))
	}
	if want := "#      SUB-URL"; !strings.HasPrefix(table[0], want) || !strings.HasSuffix(table[0], "  REQS  BYTES  HITS  MISS  FORMAT") {
		t.Errorf("header %q", table[0])
	}
	// Left-aligned columns start where their header does, right-aligned
	// ones end there.
	for _, col := range []string{"SUB-URL", "KIND", "FORMAT"} {
		at := strings.Index(table[0], col) // the header is ASCII
		for _, l := range table[1:3] {
			r := []rune(l)
			if len(r) <= at || r[at-1] != ' ' || r[at-2] != ' ' || r[at] == ' ' {
				t.Errorf("column %s does not start at %d in every row:\n%s", col, at, strings.Join(table, "\n"))
				break
			}
		}
	}
	for _, col := range []string{"SIZE", "TIME", "REQS", "BYTES", "MISS"} {
		end := strings.Index(table[0], col) + len(col) - 1
		for i, l := range table[1:] {
			if col == "SIZE" && i == 3 {
				continue // the total has none
			}
			r := []rune(l)
			if len(r) <= end || r[end] == ' ' || len(r) > end+1 && r[end+1] != ' ' {
				t.Errorf("column %s does not end at %d in every row:\n%s", col, end, strings.Join(table, "\n"))
				break
			}
		}
	}
	size := listfmt.HumanSize(int64(len(zip)))
	if f := strings.Fields(table[1]); len(f) < 9 || f[1] != srv.URL()+"/site.zip" || f[2] != "file" || f[3] != size || f[9] != "file" {
		t.Errorf("row of the root %q, want its URL, kind file, size %s and format", table[1], size)
	}
	if !strings.Contains(table[2], " zip: (detected) ") || !strings.Contains(table[2], " dir ") || !strings.Contains(table[3], "listed 2 entries") {
		t.Errorf("table:\n%s", strings.Join(table, "\n"))
	}
}

// TestExplainTerminalNames explains a local zip whose path is long and
// holds a space and non-ASCII characters: on a terminal its name shows as
// typed, shortened in the middle to fit 100 columns, keeping the file's
// name; the tab-separated form keeps the canonical text whole.
func TestExplainTerminalNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("a-long-directory-name-", 4))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "résumé b.zip")
	if err := os.WriteFile(name, fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello")}, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	first, table := explainScreen(t, name)
	if !strings.HasPrefix(first, "file:/") || !strings.Contains(first, "…") || !strings.HasSuffix(first, "/résumé b.zip|zip:, a directory") ||
		utf8.RuneCountInString(first) != 100 {
		t.Errorf("the line above the table = %q, want the pipeline, typed, shortened in the middle to 100 columns", first)
	}
	if len(table) != 5 {
		t.Fatalf("the terminal shows %d rows:\n%s", len(table), strings.Join(table, "\n"))
	}
	if !strings.HasPrefix(table[1], "0      file:/") || !strings.Contains(table[1], "…") || !strings.Contains(table[1], "/résumé b.zip  file ") {
		t.Errorf("row of the root %q, want the path shortened in the middle, its name kept", table[1])
	}
	p, err := vfs.FromPath(name)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Split(mustRun(t, "explain", name), "\n")[1], "0\t"+p.String()+"\t"; !strings.HasPrefix(got, want) {
		t.Errorf("tab-separated row %q, want it to start with %q", got, want)
	}
}

// TestExplainErrors checks that a missing member fails with the sub-URL
// named and exit status 1, and that a missing argument is a usage error.
func TestExplainErrors(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{
		"site.zip": fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello")}, 0),
	})
	r := runCLI(t, "explain", srv.URL()+"/site.zip|zip:missing.txt")
	if r.code != exitError || r.stdout != "" ||
		!strings.HasPrefix(r.stderr, "pipefs: ") || !strings.Contains(r.stderr, `sub-URL 1 "zip:missing.txt"`) {
		t.Errorf("explain of a missing member: exit %d, stdout %q, stderr %q; want 1 and the sub-URL named", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "explain"); r.code != exitUsage {
		t.Errorf("explain with no URL: exit %d, want %d", r.code, exitUsage)
	}
}

func TestExplainHelp(t *testing.T) {
	out := mustRun(t, "explain", "--help")
	for _, want := range []string{"Usage:\n  pipefs explain", "Examples:\n  pipefs explain", "--read", "--json", "detected"} {
		if !strings.Contains(out, want) {
			t.Errorf("pipefs explain --help does not contain %q:\n%s", want, out)
		}
	}
}
