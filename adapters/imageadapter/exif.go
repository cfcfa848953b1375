package imageadapter

import "encoding/binary"

// maxExif bounds the EXIF block read for the orientation.
const maxExif = 1 << 16

// exifOrientation returns the Orientation tag (0x0112) of IFD0 of an EXIF
// block in TIFF layout ("II*\0" or "MM\0*" first), or 0 when it has none
// or is malformed.
func exifOrientation(b []byte) int {
	if len(b) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(b[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 0
	}
	off := int64(bo.Uint32(b[4:]))
	if off+2 > int64(len(b)) {
		return 0
	}
	n := int64(bo.Uint16(b[off:]))
	for i := range n {
		e := off + 2 + 12*i
		if e+12 > int64(len(b)) {
			return 0
		}
		if bo.Uint16(b[e:]) == 0x0112 && bo.Uint16(b[e+2:]) == 3 {
			if v := int(bo.Uint16(b[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 0
		}
	}
	return 0
}
