package describe

import (
	"fmt"
	"io"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
)

// WriteNode writes the description of n (Node.Describe) to w, as "pipefs
// array" prints it: indented JSON when asJSON is set, else one "label:
// text" line per field, the text aligned.
func WriteNode(w io.Writer, n *array.Node, asJSON bool) error {
	d := n.Describe()
	if asJSON {
		b, err := Indent(d)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var b strings.Builder
	for _, l := range Lines(d) {
		fmt.Fprintf(&b, "%-16s %s\n", l.Label+":", l.Text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
