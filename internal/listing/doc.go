// Package listing writes the listings of pipefs ls and pipefs tree over a
// *vfs.FS: a Lister for the rows of ls (names, or with Long the columns
// of ls -l aligned by Flush; -0, --url, --human-readable, -R), a Tree for
// the branches of tree, and ReportOmitted for the entries that a damaged
// archive left out of its listing.
//
// Both walk with package vfs/deep: with its Options' Depth above 0, the
// containers among the entries (a zip in a zip, a tar.gz) are opened,
// relative to the FS they are in, and listed as the directories they hold,
// with their formats ("inner.zip/  [zip]"). Names are quoted for a
// terminal as GNU ls quotes them (listfmt.Name).
//
// Errors go to the Report function the caller sets, and the listing goes
// on; Failed then tells the caller to exit with status 1. Nothing is
// written after the FS's context is done.
package listing
