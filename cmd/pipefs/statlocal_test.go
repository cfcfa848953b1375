package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatJSONLocal: the header of a local file (its stat_t) is typed as
// the others are: its times RFC 3339 strings, the modification time among
// them, and no padding member.
func TestStatJSONLocal(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(name, []byte("local\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2023, 4, 5, 6, 7, 8, 123456789, time.UTC)
	if err := os.Chtimes(name, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	_, raw := statJSON(t, name)
	var h map[string]any
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	found := false
	for k, v := range h {
		if strings.HasPrefix(k, "X_") {
			t.Errorf("header member %s: %v, padding", k, v)
		}
		if o, ok := v.(map[string]any); ok {
			t.Errorf("header member %s: %v, want a time", k, o)
		}
		if s, ok := v.(string); ok {
			if tm, err := time.Parse(time.RFC3339Nano, s); err == nil && tm.Equal(mtime) {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no header member is the modification time %s: %s", mtime.Format(time.RFC3339Nano), raw)
	}
	out := mustRun(t, "stat", name)
	if strings.Contains(out, `"Sec"`) || !strings.Contains(out, " "+mtime.Format(time.RFC3339)+"\n") {
		t.Errorf("stat of a local file: its header's times are not RFC 3339:\n%s", out)
	}
}
