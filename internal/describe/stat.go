package describe

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/vfs"
)

// A Stat is what "pipefs stat" shows of a location: its entry, and the
// raw header its driver gives (Header), described.
type Stat struct {
	Name       string    `json:"name"`
	Size       int64     `json:"size"`
	Mode       string    `json:"mode"`
	IsDir      bool      `json:"is_dir"`
	ModTime    time.Time `json:"mod_time,omitzero"` // zero: none recorded
	Target     string    `json:"target,omitempty"`  // of a symbolic link
	URL        string    `json:"url,omitempty"`
	HeaderType string    `json:"header_type,omitempty"` // its Go type: "*zip.FileHeader"
	// HeaderJSON is the header's JSON, without the members whose value
	// is zero (see Prune).
	HeaderJSON json.RawMessage `json:"header,omitempty"`
	Header     []Line          `json:"-"` // for people
}

// FileInfo describes info, the entry of a location, and target, the
// target of a symbolic link ("" for none). The header is the Header of
// info's *vfs.Origin (or info.Sys() itself), described by [Header].
func FileInfo(info fs.FileInfo, target string) *Stat {
	s := &Stat{
		Name:    info.Name(),
		Size:    info.Size(),
		Mode:    listfmt.Mode(info.Mode()),
		IsDir:   info.IsDir(),
		ModTime: info.ModTime(),
		Target:  target,
	}
	h := info.Sys()
	if o, ok := h.(*vfs.Origin); ok {
		s.URL = o.URL
		h = o.Header
	}
	if h == nil {
		return s
	}
	s.HeaderType = fmt.Sprintf("%T", h)
	d := Header(h)
	s.Header = Lines(d)
	raw, err := JSON(d)
	if err == nil {
		raw, err = Prune(raw)
	}
	if err != nil {
		raw, _ = Marshal(s.Header)
	}
	s.HeaderJSON = raw
	return s
}

// WriteText writes s for people, one "Label: value" line each, the
// header's lines indented below it. quote writes a name or value as the
// output shows it (a terminal quotes control characters); tty is passed
// to it for the name and target, false for the header's values.
func (s *Stat) WriteText(w io.Writer, tty bool, quote func(s string, tty bool) string) error {
	kind := "regular file"
	switch {
	case s.IsDir:
		kind = "directory"
	case strings.HasPrefix(s.Mode, "l"):
		kind = "symbolic link"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Name:     %s\n", quote(s.Name, tty))
	fmt.Fprintf(&b, "Type:     %s\n", kind)
	if s.Target != "" {
		fmt.Fprintf(&b, "Target:   %s\n", quote(s.Target, tty))
	}
	fmt.Fprintf(&b, "Size:     %d\n", s.Size)
	fmt.Fprintf(&b, "Mode:     %s\n", s.Mode)
	if !s.ModTime.IsZero() {
		fmt.Fprintf(&b, "Modified: %s\n", s.ModTime.Format(time.RFC3339))
	}
	if s.URL != "" {
		fmt.Fprintf(&b, "URL:      %s\n", s.URL)
	}
	if s.HeaderType != "" {
		fmt.Fprintf(&b, "Header:   %s\n", s.HeaderType)
		width := 0
		for _, l := range s.Header {
			width = max(width, len(l.Label))
		}
		for _, l := range s.Header {
			fmt.Fprintf(&b, "  %-*s %s\n", width+1, l.Label+":", quote(l.Text, false))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
