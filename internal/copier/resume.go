package copier

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"time"
)

// A sourceID is what identifies the bytes of a source, recorded beside a
// partial copy: --continue resumes only a copy of the same bytes.
type sourceID struct {
	URL     string    `json:"url"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime,omitzero"`
	// Version is the fingerprint of the object the source is read from
	// (an ETag or generation with the size, a local file's inode and
	// times), "" when it has none.
	Version string `json:"version,omitempty"`
	// CRC32 is the checksum a zip member's header records, when it
	// records one.
	CRC32 *uint32 `json:"crc32,omitempty"`
}

func (a *sourceID) equal(b *sourceID) bool {
	return a.URL == b.URL && a.Size == b.Size && a.ModTime.Equal(b.ModTime) && a.Version == b.Version &&
		(a.CRC32 == nil) == (b.CRC32 == nil) && (a.CRC32 == nil || *a.CRC32 == *b.CRC32)
}

// resumePoint decides where a --continue copy of name starts. A complete
// name (the source's size, and its CRC-32 when known) is skipped. A
// partial copy of the same source (its record matches id) or a name
// shorter than the source is resumed at its length, its bytes hashed into
// h; anything else is copied again from the start (n is 0).
func (c *fileCopier) resumePoint(name string, id *sourceID, h io.Writer) (skip bool, n int64, err error) {
	partial, record := name+PartialSuffix, name+SourceSuffix
	if st, err := c.root.Lstat(name); err == nil && st.Mode().IsRegular() {
		switch {
		case st.Size() == id.Size:
			if id.CRC32 == nil {
				return true, 0, nil
			}
			var sum crc32Sum
			if err := c.hashFile(name, &sum); err != nil {
				return false, 0, err
			}
			if sum.sum == *id.CRC32 {
				return true, 0, nil
			}
			return false, 0, nil // the same size, other bytes
		case st.Size() < id.Size:
			if _, err := c.root.Lstat(partial); errors.Is(err, fs.ErrNotExist) {
				// A shorter name, copied by another program or
				// before pipefs kept partial copies apart: resume it.
				if err := c.root.Rename(name, partial); err != nil {
					return false, 0, err
				}
				if err := c.writeRecord(record, id); err != nil {
					return false, 0, err
				}
			}
		}
	}
	st, err := c.root.Lstat(partial)
	if errors.Is(err, fs.ErrNotExist) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	if !st.Mode().IsRegular() || st.Size() > id.Size {
		return false, 0, nil
	}
	b, err := c.root.ReadFile(record)
	if errors.Is(err, fs.ErrNotExist) {
		return false, 0, nil // where the partial copy came from is unknown: start again
	}
	if err != nil {
		// A record that cannot be read is reported, and the partial
		// copy kept: it may be the one the user means to resume.
		return false, 0, err
	}
	var old sourceID
	if json.Unmarshal(b, &old) != nil || !old.equal(id) {
		return false, 0, nil // another source, or a changed one: start again
	}
	if err := c.hashFile(partial, h); err != nil {
		return false, 0, err
	}
	return false, st.Size(), nil
}

// hashFile writes the bytes of the local file name to h.
func (c *fileCopier) hashFile(name string, h io.Writer) error {
	f, err := c.root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}

// writeRecord writes id beside a partial copy, as name.
func (c *fileCopier) writeRecord(name string, id *sourceID) error {
	b, err := json.Marshal(id)
	if err != nil {
		return err
	}
	return c.root.WriteFile(name, append(b, '\n'), 0o644)
}
