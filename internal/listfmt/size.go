package listfmt

import "strconv"

// HumanSize writes a size in bytes as "ls -h" (GNU coreutils) and
// "numfmt --to=iec" write it: powers of 1024 with the unit letter K, M, G,
// T, P or E and no "B", rounded up, with one decimal below 10 ("1.5K",
// "10K", "1.0M"); a size below 1024 is the number of bytes ("1023"), and
// a negative one is written as it is.
func HumanSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	const units = "KMGTPE"
	u, d := uint64(n), uint64(1024)
	k := 0
	for k < len(units)-1 && u/d >= 1024 {
		d <<= 10
		k++
	}
	q, r := u/d, u%d
	if q < 10 {
		// Tenths, rounded up: r*10+d-1 < 11<<60 fits in a uint64.
		t := q*10 + (r*10+d-1)/d
		if t < 100 {
			return strconv.FormatUint(t/10, 10) + "." + strconv.FormatUint(t%10, 10) + units[k:k+1]
		}
	}
	if r > 0 {
		q++
	}
	if q >= 1024 && k < len(units)-1 {
		return "1.0" + units[k+1:k+2]
	}
	return strconv.FormatUint(q, 10) + units[k:k+1]
}
