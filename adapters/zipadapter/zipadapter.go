package zipadapter

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "zip", OpenFile: openAdapter, Extensions: []string{".zip"}})
	vfs.RegisterFormat(&vfs.Format{
		Name:    "zip",
		Adapter: "zip:",
		Input:   vfs.KindFile,
		Tail:    maxEndRecordLen,
		Match:   Match,
		Hint:    "PK\x03\x04", // a local file header: a zip cut short
	})
}

// openAdapter opens the zip: sub-URL u over the file src.
func openAdapter(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	// No sidecar: the central directory is one read of the archive's tail,
	// which costs what reading a sidecar would.
	a, err := open(ctx, src, env.Options, env.DiskIndex(diskKind(env.Options.EffectiveLimits())).LocalOnly())
	if err != nil {
		return driver.Location{}, err
	}
	if env.Key != "" {
		info := src.Stat()
		a.key = fmt.Sprintf("zip\x00%s\x00%d\x00%d", env.Key, a.size, info.ModTime().UnixNano())
	}
	return driver.Location{Tree: a, Path: u.Key()}, nil
}

// Match reports whether tail, the last bytes of a file of the given size,
// ends with a zip end of central directory record: its signature, a
// comment length that reaches exactly the end of the file, and a central
// directory that lies before the record. When the record's fields are the
// zip64 markers, the zip64 end locator must precede it. head is not used.
func Match(head, tail []byte, size int64) bool {
	le := binary.LittleEndian
	for i := len(tail) - dirEndLen; i >= 0 && len(tail)-i <= maxEndRecordLen; i-- {
		if tail[i] != 'P' || tail[i+1] != 'K' || tail[i+2] != 5 || tail[i+3] != 6 {
			continue
		}
		b := tail[i:]
		if int(le.Uint16(b[20:]))+dirEndLen != len(b) {
			continue
		}
		records, dirSize, dirOff := le.Uint16(b[10:]), le.Uint32(b[12:]), le.Uint32(b[16:])
		if records == 0xffff || dirSize == 0xffffffff || dirOff == 0xffffffff {
			return i >= dir64LocLen && le.Uint32(tail[i-dir64LocLen:]) == dir64LocSig
		}
		endOff := size - int64(len(b))
		return int64(dirOff)+int64(dirSize) <= endOff
	}
	return false
}
