package optflags

import (
	"testing"

	"github.com/spf13/pflag"
)

// FuzzParseSize checks that ParseSize never panics, and that what it
// reads FormatSize writes back to the same value.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1100", "-1", "none", "2T", "64KiB", "3MB", "8E", "9E", "-8E", "1.5G", "iB", "B", " 7 k ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		back, err := ParseSize(FormatSize(n))
		if err != nil || back != n {
			t.Errorf("ParseSize(%q) = %d, but ParseSize(FormatSize(%d) = %q) = %d, %v", s, n, n, FormatSize(n), back, err)
		}
	})
}

// FuzzLimitsEnv checks that any value of $PIPEFS_LIMITS either sets the
// limits or is an error, without a panic.
func FuzzLimitsEnv(f *testing.F) {
	for _, s := range []string{"MaxRatio=-1,MaxFileSize=2T", "max-depth=7", "--max-entries=1G", "MaxRatio", "=", ",,", "MaxDepth=9E", "MaxDepth=99999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, env string) {
		fl := New()
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fl.Add(fs)
		if err := fs.Parse([]string{"--cache-dir=off"}); err != nil {
			t.Fatal(err)
		}
		fl.Setup(fs, Env{Limits: env})
	})
}
