package explain

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/internal/texttable"
	"github.com/pipefs/pipefs/vfs"
)

// Width is the width the terminal table fits in.
const Width = 100

// Print writes the report: as a table that fits Width columns on a
// terminal (tty), as tab-separated fields otherwise.
func (rep *Report) Print(w io.Writer, tty bool) error {
	if tty {
		return rep.printTable(w)
	}
	rep.printFields(w)
	return nil
}

// printFields writes the report as rows of tab-separated fields, one row
// a line, for scripts: sizes and counts in bytes, sub-URLs canonical.
func (rep *Report) printFields(w io.Writer) {
	row := func(fields ...string) { fmt.Fprintln(w, strings.Join(fields, "\t")) }
	cost := func(c Cost) []string {
		if !rep.Counted {
			return []string{formatSeconds(c.Seconds), "-", "-", "-", "-"}
		}
		return []string{formatSeconds(c.Seconds), itoa(c.Requests), itoa(c.BytesFetched), itoa(c.CacheHits), itoa(c.CacheMisses)}
	}
	row("#", "SUB-URL", "SCHEME", "ORIGIN", "KIND", "SIZE", "TIME", "REQUESTS", "FETCHED", "HITS", "MISSES", "FORMAT")
	for _, s := range rep.Stages {
		origin := "written"
		if s.Detected {
			origin = "detected"
		}
		size := "-"
		if s.Size != nil {
			size = itoa(*s.Size)
		}
		// A canonical sub-URL holds no control character; listfmt.Name
		// guards the output all the same.
		fields := []string{strconv.Itoa(s.Index), listfmt.Name(s.SubURL, false), s.Scheme, origin, s.Kind, size}
		row(append(append(fields, cost(s.Open)...), s.Format)...)
	}
	if r := rep.Read; r != nil {
		what, kind, size := r.what()
		if r.BytesRead != nil {
			size = itoa(*r.BytesRead)
		}
		row(append([]string{"read", what, "", "", kind, size}, append(cost(r.Cost), "")...)...)
	}
	row(append([]string{"total", rep.Pipeline, "", "", rep.Kind, ""}, append(cost(rep.Total), "")...)...)
}

// columns are the columns of the terminal table.
var columns = []texttable.Column{
	{Header: "#"},
	{Header: "SUB-URL", Elide: texttable.Middle, Min: 16},
	{Header: "KIND"},
	{Header: "SIZE", Right: true},
	{Header: "TIME", Right: true},
	{Header: "REQS", Right: true},
	{Header: "BYTES", Right: true},
	{Header: "HITS", Right: true},
	{Header: "MISS", Right: true},
	{Header: "FORMAT", Elide: texttable.End, Min: 8},
}

// printTable writes the report for people: the pipeline opened on a line
// of its own (shortened in the middle when it is wider), then a table of
// the layers, the read and the total, which fits Width columns. Sub-URLs
// are shown as they are typed (vfs.DisplayText), a detected one marked
// "(detected)"; sizes and bytes as ls -h writes them; kinds "file" and
// "dir".
func (rep *Report) printTable(w io.Writer) error {
	cost := func(c Cost) []string {
		if !rep.Counted {
			return []string{formatSeconds(c.Seconds), "-", "-", "-", "-"}
		}
		return []string{formatSeconds(c.Seconds), itoa(c.Requests), listfmt.HumanSize(c.BytesFetched), itoa(c.CacheHits), itoa(c.CacheMisses)}
	}
	var rows [][]string
	for _, s := range rep.Stages {
		name := listfmt.Name(vfs.DisplayText(s.SubURL), false)
		if s.Detected {
			name += " (detected)"
		}
		size := "-"
		if s.Size != nil {
			size = listfmt.HumanSize(*s.Size)
		}
		fields := []string{strconv.Itoa(s.Index), name, shortKind(s.Kind), size}
		rows = append(rows, append(append(fields, cost(s.Open)...), s.Format))
	}
	if r := rep.Read; r != nil {
		what, kind, size := r.what()
		if r.BytesRead != nil {
			size = listfmt.HumanSize(*r.BytesRead)
		}
		rows = append(rows, append([]string{"read", what, shortKind(kind), size}, cost(r.Cost)...))
	}
	rows = append(rows, append([]string{"total", "", shortKind(rep.Kind), ""}, cost(rep.Total)...))
	line := listfmt.Name(vfs.DisplayText(rep.Pipeline), false) + ", " + article(rep.Kind)
	if _, err := fmt.Fprintln(w, texttable.Fit(line, Width)); err != nil {
		return err
	}
	return texttable.Write(w, columns, rows, Width)
}

// what returns what the read did, the kind of what it read, and its size
// ("-" for a directory).
func (r *Read) what() (what, kind, size string) {
	switch {
	case r.BytesRead != nil:
		return "read to the end", "file", ""
	case r.Entries != nil && *r.Entries == 1:
		return "listed 1 entry", "directory", "-"
	case r.Entries != nil:
		return fmt.Sprintf("listed %d entries", *r.Entries), "directory", "-"
	}
	return "", "", ""
}

// shortKind is a kind as the terminal table writes it.
func shortKind(kind string) string {
	if kind == vfs.KindDirectory.String() {
		return "dir"
	}
	return kind
}

// article returns the kind with an indefinite article: "a directory".
func article(kind string) string {
	if kind == "" {
		return "unknown"
	}
	return "a " + kind
}

// itoa formats n in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// formatSeconds formats a duration in seconds for people, to three
// significant digits or to the microsecond: "1.23ms", "15µs", "2.5s".
func formatSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	r := time.Microsecond
	for r < time.Second && d >= 1000*r {
		r *= 10
	}
	return d.Round(r).String()
}
