package listing

import (
	"fmt"
	"io"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// ReportOmitted reports on w, once each, the entries that the archive
// fsys is read from left out of it (driver.Omitter), and reports whether
// the archive is damaged: a listing that ended early at damage,
// or a stream below whose checks failed, is an error (the exit status is
// then 1, as bsdtar's), an entry left out for its name a warning.
func ReportOmitted(fsys *vfs.FS, w io.Writer, report func(error)) (damaged bool) {
	var o driver.Omitter
	if !fsys.As(&o) {
		return false
	}
	list, err := o.Omitted(fsys.Context())
	if err != nil {
		report(err)
		return true
	}
	archive := fsys.Pipeline()
	if len(archive) > 1 {
		archive = archive[:len(archive)-1] // the container file
	}
	for _, om := range list {
		if om.Err != nil {
			fmt.Fprintf(w, "pipefs: %s: damaged, the listing is incomplete: %s\n", archive, om.Reason)
			damaged = true
			continue
		}
		at := "at an unknown offset"
		if om.Offset >= 0 {
			at = fmt.Sprintf("at offset %d", om.Offset)
		}
		fmt.Fprintf(w, "pipefs: warning: %s: entry %s %s left out: %s\n", archive, listfmt.ShellQuote(om.Name), at, om.Reason)
	}
	return damaged
}
