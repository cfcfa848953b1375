package taradapter

import (
	"archive/tar"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/pipefs/pipefs/internal/indexenc"
	"github.com/pipefs/pipefs/vfs"
)

// The member table of an archive is kept on disk (vfs.DiskIndex) once a
// scan has read the whole archive without error, so that a later process
// lists the archive without reading it (and without decoding the stream
// below it). What is kept is the scan's raw members, headers included;
// the naming rules are applied again to them at load (buildIndex), so a
// change of rules needs no new format. An archive whose listing ended
// early is not kept: its error is not worth a format of its own.
//
// The encoding, version 1, is a sequence of indexenc values:
//
//	globals: count, then each header
//	members: count, then each: header, hdrOff, dataOff, size, packed,
//	         short, sparse, and when sparse, a count of (offset, length)
//	header:  typeflag, name, linkname, size, mode, uid, gid, uname, gname,
//	         modtime, accesstime, changetime, devmajor, devminor,
//	         count of PAX records (key, value sorted by key), format
//	time:    zero flag, then unix seconds and nanoseconds
//
// Decoding checks every value as the scan checks the archive's bytes:
// counts against Limits.MaxEntries, names against Limits.MaxNameLength,
// offsets, sizes and sparse maps against each other and the archive's
// size when it is known.

// diskKind names the index on disk; the limits are in it because they
// change what a scan returns.
func diskKind(lim vfs.Limits) string {
	return fmt.Sprintf("%s v1 entries %d name %d", Scheme, lim.MaxEntries, lim.MaxNameLength)
}

// encodeScanned encodes sc, which has no early end.
func encodeScanned(sc *scanned) []byte {
	var e indexenc.Encoder
	e.Uint(uint64(len(sc.globals)))
	for _, h := range sc.globals {
		encodeHeader(&e, h)
	}
	e.Uint(uint64(len(sc.members)))
	for i := range sc.members {
		m := &sc.members[i]
		encodeHeader(&e, m.hdr)
		e.Int(m.hdrOff)
		e.Int(m.dataOff)
		e.Int(m.size)
		e.Int(m.packed)
		e.Bool(m.short)
		e.Bool(m.frags != nil)
		if m.frags != nil {
			e.Uint(uint64(len(m.frags)))
			for _, f := range m.frags {
				e.Int(f.Offset)
				e.Int(f.Length)
			}
		}
	}
	return e.Bytes()
}

func encodeHeader(e *indexenc.Encoder, h *tar.Header) {
	e.Uint(uint64(h.Typeflag))
	e.String(h.Name)
	e.String(h.Linkname)
	e.Int(h.Size)
	e.Int(h.Mode)
	e.Int(int64(h.Uid))
	e.Int(int64(h.Gid))
	e.String(h.Uname)
	e.String(h.Gname)
	for _, t := range []time.Time{h.ModTime, h.AccessTime, h.ChangeTime} {
		e.Bool(t.IsZero())
		if !t.IsZero() {
			e.Int(t.Unix())
			e.Uint(uint64(t.Nanosecond()))
		}
	}
	e.Int(h.Devmajor)
	e.Int(h.Devminor)
	e.Uint(uint64(len(h.PAXRecords)))
	for _, k := range slices.Sorted(maps.Keys(h.PAXRecords)) {
		e.String(k)
		e.String(h.PAXRecords[k])
	}
	e.Uint(uint64(h.Format))
}

// decodeScanned decodes what encodeScanned wrote, for an archive of size
// bytes (-1 when not known), checking it against lim.
func decodeScanned(b []byte, size int64, lim vfs.Limits) (*scanned, error) {
	d := indexenc.NewDecoder(b)
	sc := new(scanned)
	meta := 0 // header bytes kept, bounded by maxMetaBytes as a scan's are
	n := d.Count(lim.MaxEntries)
	for range n {
		sc.globals = append(sc.globals, decodeHeader(d, lim, &meta))
	}
	n = d.Count(lim.MaxEntries - len(sc.globals))
	if n > 0 {
		sc.members = make([]member, 0, n)
	}
	end := int64(0) // the end of the last member's data
	for range n {
		m := member{hdr: decodeHeader(d, lim, &meta)}
		m.hdrOff = d.NonNeg(end)
		m.dataOff = d.NonNeg(m.hdrOff + blockSize)
		m.size = d.NonNeg(0)
		m.packed = d.NonNeg(0)
		m.short = d.Bool()
		if m.packed > 1<<62 || size >= 0 && !m.short && m.dataOff+m.packed > size {
			d.Fail("member %q: data [%d, +%d) past the archive's end", m.hdr.Name, m.dataOff, m.packed)
		}
		if d.Bool() {
			m.frags = decodeFrags(d, &m)
		} else if m.size != m.packed {
			d.Fail("member %q: size %d stored in %d bytes", m.hdr.Name, m.size, m.packed)
		}
		if d.Err() != nil {
			break
		}
		end = m.dataOff + roundUp(m.packed)
		sc.members = append(sc.members, m)
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	return sc, nil
}

// decodeFrags decodes a sparse map and checks it as setFrags does.
func decodeFrags(d *indexenc.Decoder, m *member) []fragment {
	n := d.Count(1 << 30)
	frags := make([]fragment, 0, n)
	var packed, end int64
	for range n {
		f := fragment{d.Int(), d.Int(), packed}
		if f.Offset < end || f.Length <= 0 || f.Offset > m.size || f.Length > m.size-f.Offset {
			d.Fail("member %q: bad sparse map", m.hdr.Name)
			return nil
		}
		end = f.Offset + f.Length
		packed += f.Length
		frags = append(frags, f)
	}
	if packed != m.packed {
		d.Fail("member %q: sparse map covers %d bytes, the member stores %d", m.hdr.Name, packed, m.packed)
	}
	return frags
}

func decodeHeader(d *indexenc.Decoder, lim vfs.Limits, meta *int) *tar.Header {
	h := new(tar.Header)
	t := d.Uint()
	if t > 0xff {
		d.Fail("type flag %d", t)
	}
	h.Typeflag = byte(t)
	h.Name = d.String(maxSpecial)
	h.Linkname = d.String(maxSpecial)
	h.Size = d.NonNeg(0)
	h.Mode = d.Int()
	h.Uid = int(d.Int())
	h.Gid = int(d.Int())
	h.Uname = d.String(maxSpecial)
	h.Gname = d.String(maxSpecial)
	for _, p := range []*time.Time{&h.ModTime, &h.AccessTime, &h.ChangeTime} {
		if !d.Bool() {
			sec, nsec := d.Int(), d.Uint()
			if nsec >= 1e9 {
				d.Fail("nanoseconds %d", nsec)
			}
			*p = time.Unix(sec, int64(nsec))
		}
	}
	h.Devmajor = d.Int()
	h.Devminor = d.Int()
	if n := d.Count(maxSpecial); n > 0 {
		h.PAXRecords = make(map[string]string, n)
		for range n {
			k := d.String(maxSpecial)
			h.PAXRecords[k] = d.String(maxSpecial)
			*meta += len(k) + len(h.PAXRecords[k])
		}
	}
	h.Format = tar.Format(d.Uint())
	*meta += len(h.Name) + len(h.Linkname) + len(h.Uname) + len(h.Gname)
	if *meta > maxMetaBytes {
		d.Fail("more than %d bytes of names and records", maxMetaBytes)
	}
	return h
}
