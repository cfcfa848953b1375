package browse

import "strings"

// listChildrenOnce makes a node's page name each child once. A child that
// the page's listing holds (a directory of the tree the node is read
// from: a group or array of Zarr, N5 or HDF5) is listed there, with its
// kind, and is left out of the page's list of children (ChildLinks); the
// metadata row that names the children is left out when every child is
// listed, there or in ChildLinks. The JSON of the page keeps them all: its
// "children" and its "description".
func listChildrenOnce(n *nodeView, d *dirView) {
	listed := map[string]bool{}
	if d != nil {
		for _, e := range d.Entries {
			if e.Dir {
				listed[e.Href] = true
			}
		}
	}
	n.ChildLinks = n.ChildLinks[:0]
	for _, c := range n.Children {
		if !listed[c.Href] {
			n.ChildLinks = append(n.ChildLinks, c)
		}
	}
	if len(n.Children) == 0 {
		return
	}
	rows := n.Rows[:0]
	for _, r := range n.Rows {
		if strings.TrimSpace(r.Key) != "children" {
			rows = append(rows, r)
		}
	}
	n.Rows = rows
}
