package listfmt

import (
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestHumanSize compares HumanSize with GNU numfmt --to=iec, which rounds
// as "ls -h" does, at the edges of each unit.
func TestHumanSize(t *testing.T) {
	numfmt := fstest.NeedTool(t, "numfmt")
	sizes := []int64{0, 1, 999, 1000, 1023, 1024, 1025, 1536, 10239, 10240, 10241, 102400, 1047552, 1048575, 1048576, 1048577, 5 << 30, 1<<40 - 1, 1 << 50, 1<<60 - 1, 1 << 60, 3<<60 + 12345, math.MaxInt64}
	for _, base := range []int64{1 << 10, 1 << 20, 1 << 30} {
		for _, f := range []int64{9, 10, 99, 100, 1023} {
			sizes = append(sizes, f*base-1, f*base, f*base+1, f*base+base/10, f*base+base-1)
		}
	}
	args := []string{"--to=iec"}
	for _, n := range sizes {
		args = append(args, strconv.FormatInt(n, 10))
	}
	out, err := exec.Command(numfmt, args...).Output()
	if err != nil {
		t.Fatalf("numfmt: %v", err)
	}
	want := strings.Fields(string(out))
	if len(want) != len(sizes) {
		t.Fatalf("numfmt wrote %d sizes for %d", len(want), len(sizes))
	}
	for i, n := range sizes {
		if got := HumanSize(n); got != want[i] {
			t.Errorf("HumanSize(%d) = %q, numfmt says %q", n, got, want[i])
		}
	}
	if got := HumanSize(-1); got != "-1" {
		t.Errorf("HumanSize(-1) = %q", got)
	}
}
