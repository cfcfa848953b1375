package remote

import (
	"strconv"
	"strings"
)

// ParseContentRange parses the Content-Range of a partial answer,
// "bytes START-END/SIZE" (RFC 9110, section 14.4), as HTTP servers and S3
// send it. It returns the range as [start, end), end exclusive, and the
// size of the object, -1 when SIZE is "*". ok is false unless the range
// is well formed, starts at or after 0, and lies inside the size.
func ParseContentRange(s string) (start, end, size int64, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, total, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	a, z, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, 0, false
	}
	var err1, err2 error
	start, err1 = strconv.ParseInt(a, 10, 64)
	end, err2 = strconv.ParseInt(z, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < start {
		return 0, 0, 0, false
	}
	size = -1
	if total != "*" {
		var err error
		if size, err = strconv.ParseInt(total, 10, 64); err != nil || size <= end {
			return 0, 0, 0, false
		}
	}
	return start, end + 1, size, true
}
