package optflags

import (
	"reflect"
	"testing"

	"github.com/spf13/pflag"

	"github.com/pipefs/pipefs/vfs"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"1100": 1100, "-1": -1, "none": -1, "Unlimited": -1, "0": 0,
		"2T": 2 << 40, "2t": 2 << 40, "64KiB": 64 << 10, "3MB": 3 << 20, "1G": 1 << 30, "100B": 100,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "1.5G", "9E", "10iB", "1 G G"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

// TestLimitFlags checks that every field of vfs.Limits has a flag, that
// sizes format as they parse, and that the flags win over $PIPEFS_LIMITS.
func TestLimitFlags(t *testing.T) {
	flags := limitFields()
	if n := reflect.TypeFor[vfs.Limits]().NumField(); len(flags) != n {
		t.Errorf("%d limit flags for %d fields of vfs.Limits", len(flags), n)
	}
	for n, want := range map[int64]string{1100: "1100", 1 << 40: "1T", 64 << 20: "64M", 1536: "1536", -1: "-1"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Errorf("ParseSize(FormatSize(%d)) = %d, %v", n, back, err)
		}
	}
	if flagName("MaxFileSize") != "max-file-size" {
		t.Errorf("flagName(MaxFileSize) = %q", flagName("MaxFileSize"))
	}
	f := New()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.Add(fs)
	for _, lf := range flags {
		if fs.Lookup(lf.name) == nil {
			t.Errorf("no flag --%s for Limits.%s", lf.name, lf.field)
		}
	}
	if err := fs.Parse([]string{"--max-entries=9", "--cache-dir=off"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Setup(fs, Env{Limits: "MaxRatio=-1, MaxFileSize=2T,max-depth=7,MaxEntries=5"}); err != nil {
		t.Fatal(err)
	}
	want := vfs.Limits{MaxRatio: -1, MaxFileSize: 2 << 40, MaxDepth: 7, MaxEntries: 9}
	if got := f.Limits(); got != want {
		t.Errorf("limits = %+v, want %+v", got, want)
	}
	if o := f.Apply(&vfs.Options{}); o.Limits != want || o.Disk != nil {
		t.Errorf("Apply: limits %+v, disk %v; want %+v and none", o.Limits, o.Disk, want)
	}
	if err := f.Setup(fs, Env{Limits: "MaxRatio"}); err == nil {
		t.Errorf("Setup with PIPEFS_LIMITS=MaxRatio: no error")
	}
}
