// Package texttable writes a table for a terminal: columns aligned with
// two spaces between them, no padding after the last cell of a row that
// holds something, and, when the table is wider than the width it is
// given, the columns that may give way shortened with an ellipsis ("…")
// until it fits.
//
// Widths are counted in runes: a cell is assumed to hold printable text
// whose runes take one column each (callers quote what is not).
package texttable

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Elide says whether and how a column gives way when the table is too
// wide.
type Elide int

const (
	// Keep: the column is never shortened.
	Keep Elide = iota
	// End: a long cell keeps its start ("local file o…").
	End
	// Middle: a long cell keeps its start and its end
	// ("file:/data/…/run1.zip"), for names whose ends tell them apart.
	Middle
)

// A Column describes one column of a table.
type Column struct {
	Header string
	Right  bool  // align to the right (numbers)
	Elide  Elide // how the column gives way
	Min    int   // the width below which it does not give way (at least 2)
}

// gap is the space between two columns.
const gap = 2

// Write writes the header and the rows, each row one cell per column
// (missing cells are empty), to w. When the aligned table is wider than
// width, the columns that may give way are shortened, the last one first,
// each down to its Min, until the table fits or none can give more.
func Write(w io.Writer, cols []Column, rows [][]string, width int) error {
	all := make([][]string, 0, len(rows)+1)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.Header
	}
	all = append(all, header)
	for _, r := range rows {
		row := make([]string, len(cols))
		copy(row, r)
		all = append(all, row)
	}
	widths := make([]int, len(cols))
	for _, r := range all {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	total := gap * (len(cols) - 1)
	for _, n := range widths {
		total += n
	}
	for i := len(cols) - 1; i >= 0 && total > width; i-- {
		c := cols[i]
		floor := max(c.Min, 2, utf8.RuneCountInString(c.Header))
		if c.Elide == Keep || widths[i] <= floor {
			continue
		}
		cut := min(total-width, widths[i]-floor)
		widths[i] -= cut
		total -= cut
	}
	var b strings.Builder
	for _, r := range all {
		b.Reset()
		last := len(r) - 1
		for last > 0 && r[last] == "" {
			last--
		}
		for i := 0; i <= last; i++ {
			cell := elide(r[i], widths[i], cols[i].Elide)
			pad := widths[i] - utf8.RuneCountInString(cell)
			if cols[i].Right {
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(cell)
			} else {
				b.WriteString(cell)
				if i < last {
					b.WriteString(strings.Repeat(" ", pad))
				}
			}
			if i < last {
				b.WriteString(strings.Repeat(" ", gap))
			}
		}
		b.WriteByte('\n')
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// elide shortens s to n runes as e says, with "…" where runes were left
// out.
func elide(s string, n int, e Elide) string {
	r := []rune(s)
	if len(r) <= n || e == Keep {
		return s
	}
	if e == End {
		return string(r[:n-1]) + "…"
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// Fit returns s shortened in the middle to width runes, with "…" where
// runes were left out, for a line of text outside a table.
func Fit(s string, width int) string { return elide(s, max(width, 2), Middle) }
