package lzo

import "github.com/pipefs/pipefs/vfs/driver"

// Instruction constants of LZO1X (lzo1x_d.ch).
const (
	m2MaxOffset = 0x0800 // the largest distance of a 2-byte match
	m4Base      = 0x4000 // what a 3-byte long-distance (M4) match adds
)

// Decompress decodes the LZO1X stream at the start of src, which decodes
// to at most max bytes. It returns the decoded bytes and the length of
// the stream: what follows it in src is not read.
func Decompress(src []byte, max int) (out []byte, n int, err error) {
	d := decoder{src: src, max: max, out: make([]byte, 0, min(max, 64+4*len(src)))}
	if err := d.run(); err != nil {
		return nil, 0, err
	}
	return d.out, d.ip, nil
}

type decoder struct {
	src []byte
	ip  int
	out []byte
	max int
}

var errTruncated = driver.Corruptf("lzo: truncated stream")

func (d *decoder) byte() (int, error) {
	if d.ip >= len(d.src) {
		return 0, errTruncated
	}
	b := d.src[d.ip]
	d.ip++
	return int(b), nil
}

// length reads the extension of a length field whose bits are all zero:
// 255 for each zero byte, then base plus the first non-zero byte.
func (d *decoder) length(base int) (int, error) {
	n := 0
	for {
		if d.ip >= len(d.src) {
			return 0, errTruncated
		}
		b := int(d.src[d.ip])
		d.ip++
		if b != 0 {
			n += base + b
			break
		}
		n += 255
		if n > d.max {
			return 0, driver.Limitf("lzo: run longer than the %d bytes the output may hold", d.max)
		}
	}
	return n, nil
}

// room makes room for n more output bytes.
func (d *decoder) room(n int) error {
	if n > d.max-len(d.out) {
		return driver.Limitf("lzo: stream decodes to more than %d bytes", d.max)
	}
	if len(d.out)+n > cap(d.out) {
		grown := make([]byte, len(d.out), min(d.max, max(2*cap(d.out), len(d.out)+n)))
		copy(grown, d.out)
		d.out = grown
	}
	return nil
}

// literals copies n bytes of the input to the output.
func (d *decoder) literals(n int) error {
	if n > len(d.src)-d.ip {
		return errTruncated
	}
	if err := d.room(n); err != nil {
		return err
	}
	d.out = append(d.out, d.src[d.ip:d.ip+n]...)
	d.ip += n
	return nil
}

// match copies n bytes from dist bytes back in the output; the source may
// overlap what it writes.
func (d *decoder) match(dist, n int) error {
	if dist <= 0 || dist > len(d.out) {
		return driver.Corruptf("lzo: match %d bytes back, %d written", dist, len(d.out))
	}
	if err := d.room(n); err != nil {
		return err
	}
	from := len(d.out) - dist
	if dist >= n {
		d.out = append(d.out, d.out[from:from+n]...)
		return nil
	}
	for i := 0; i < n; i++ {
		d.out = append(d.out, d.out[from+i])
	}
	return nil
}

// The states of run: what an instruction byte below 16 means.
const (
	stateInstr     = iota // a literal run
	stateAfterRun         // a 3-byte match beyond the M2 range, after a literal run
	stateAfterLits        // a 2-byte match (M1), after 1 to 3 literals that end a match
)

// run decodes the stream: the state machine of lzo1x_decompress_safe.
// The low 2 bits of a match's second-to-last byte say how many literals
// (0 to 3) follow it.
func (d *decoder) run() error {
	state := stateInstr
	if len(d.src) > 0 && d.src[0] > 17 {
		// the stream starts with src[0]-17 literals
		n := int(d.src[0]) - 17
		d.ip++
		if err := d.literals(n); err != nil {
			return err
		}
		state = stateAfterLits
		if n >= 4 {
			state = stateAfterRun
		}
	}
	for {
		t, err := d.byte()
		if err != nil {
			return err
		}
		var dist, n, low int
		switch {
		case t < 16 && state == stateInstr: // t+3 literals (t 0: extended)
			if t == 0 {
				if t, err = d.length(15); err != nil {
					return err
				}
			}
			if err := d.literals(t + 3); err != nil {
				return err
			}
			state = stateAfterRun
			continue
		case t < 16:
			b, err := d.byte()
			if err != nil {
				return err
			}
			dist, n, low = 1+t>>2+b<<2, 2, t
			if state == stateAfterRun {
				dist, n = dist+m2MaxOffset, 3
			}
		case t >= 64: // M2: 3 to 8 bytes, up to 2 KiB back
			b, err := d.byte()
			if err != nil {
				return err
			}
			dist, n, low = 1+(t>>2)&7+b<<3, t>>5+1, t
		case t >= 32: // M3: up to 16 KiB back
			if n = t & 31; n == 0 {
				if n, err = d.length(31); err != nil {
					return err
				}
			}
			lo, hi, err := d.pair()
			if err != nil {
				return err
			}
			dist, n, low = 1+lo>>2+hi<<6, n+2, lo
		default: // M4: 16 to 48 KiB back, or the end of the stream
			if n = t & 7; n == 0 {
				if n, err = d.length(7); err != nil {
					return err
				}
			}
			lo, hi, err := d.pair()
			if err != nil {
				return err
			}
			dist = (t&8)<<11 + lo>>2 + hi<<6
			if dist == 0 {
				return nil // the end-of-stream marker
			}
			dist, n, low = dist+m4Base, n+2, lo
		}
		if err := d.match(dist, n); err != nil {
			return err
		}
		state = stateInstr
		if k := low & 3; k > 0 {
			if err := d.literals(k); err != nil {
				return err
			}
			state = stateAfterLits
		}
	}
}

// pair reads the two bytes that end an M3 or M4 match.
func (d *decoder) pair() (lo, hi int, err error) {
	if len(d.src)-d.ip < 2 {
		return 0, 0, errTruncated
	}
	lo, hi = int(d.src[d.ip]), int(d.src[d.ip+1])
	d.ip += 2
	return lo, hi, nil
}
