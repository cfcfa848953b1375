package copier

import (
	"fmt"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// reportOmittedEntries reports, as failures, the entries below the
// directory key of the archive under fsys that the archive left out
// because their names cannot be written (driver.Omitter): the copy
// refuses them; and the damage that ended the archive's listing early, if
// any. It returns whether there were any.
func reportOmittedEntries(t *treeCopy) bool {
	report := t.report
	var o driver.Omitter
	if !t.fsys.As(&o) {
		return false
	}
	list, err := o.Omitted(t.ctx)
	if err != nil {
		report(err)
		return true
	}
	p := t.fsys.Pipeline()
	key := p[len(p)-1].Key()
	archive := p
	if len(archive) > 1 {
		archive = archive[:len(archive)-1]
	}
	found := false
	for _, om := range list {
		if om.Err != nil {
			// The archive is damaged: the copy may lack members, or
			// hold bytes no check vouched for.
			report(fmt.Errorf("%s: damaged, the copy is incomplete: %w", archive, om.Err))
			found = true
			continue
		}
		if key != "." && !strings.HasPrefix(om.Name, key+"/") {
			continue
		}
		at := ""
		if om.Offset >= 0 {
			at = fmt.Sprintf(" at offset %d", om.Offset)
		}
		report(fmt.Errorf("%s: %w: the entry %s%s is not copied: %s", archive, ErrRefused, t.quote(om.Name), at, om.Reason))
		found = true
	}
	return found
}
