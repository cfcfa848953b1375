//go:build linux || openbsd

package fileroot

import (
	"fmt"
	"io/fs"
	"syscall"
)

// sysVersion returns the device, inode and change time of the file that
// info describes, or "" when info does not carry them.
func sysVersion(info fs.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	sec, nsec := st.Ctim.Unix()
	return fmt.Sprintf(" dev %d ino %d ctime %d.%09d", uint64(st.Dev), uint64(st.Ino), sec, nsec)
}
