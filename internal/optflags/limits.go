package optflags

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/pipefs/pipefs/vfs"
)

// A limitFlag is the flag of one field of vfs.Limits, such as --max-ratio
// for MaxRatio. Every int or int64 field gets one, by reflection, so a new
// limit is settable from the command line without more code here.
type limitFlag struct {
	field string // the vfs.Limits field, "MaxRatio"
	name  string // the flag, "max-ratio"
	value int64
}

func (f *limitFlag) String() string { return strconv.FormatInt(f.value, 10) }
func (f *limitFlag) Type() string   { return "N" }

func (f *limitFlag) Set(s string) error {
	v, err := ParseSize(s)
	if err != nil {
		return err
	}
	f.value = v
	return nil
}

// limitFields lists the settable fields of vfs.Limits with their flags.
func limitFields() []*limitFlag {
	t := reflect.TypeFor[vfs.Limits]()
	var out []*limitFlag
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || (sf.Type.Kind() != reflect.Int && sf.Type.Kind() != reflect.Int64) {
			continue
		}
		out = append(out, &limitFlag{field: sf.Name, name: flagName(sf.Name)})
	}
	return out
}

// flagName turns a field name into a flag name: "MaxFileSize" is
// "max-file-size".
func flagName(field string) string {
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// addLimitFlags adds a flag for every limit to fs.
func addLimitFlags(fs *pflag.FlagSet, flags []*limitFlag) {
	def := vfs.Limits{}.Effective()
	dv := reflect.ValueOf(def)
	for _, f := range flags {
		fs.Var(f, f.name, fmt.Sprintf("set Limits.%s, -1 for none (default %s)", f.field, FormatSize(dv.FieldByName(f.field).Int())))
	}
}

// FormatSize writes n as ParseSize reads it, with the largest unit
// that divides it: 1099511627776 is "1T".
func FormatSize(n int64) string {
	unit := 0
	for n != 0 && n%1024 == 0 && unit < 6 {
		n /= 1024
		unit++
	}
	if unit == 0 {
		return strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10) + string("KMGTPE"[unit-1])
}

// ParseSize reads a limit or a size: a decimal integer with an optional K, M, G,
// T, P or E suffix (powers of 1024, optionally followed by "B" or "iB"),
// or "none", "off" or "unlimited" for -1.
func ParseSize(s string) (int64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "off", "unlimited":
		return -1, nil
	}
	t := strings.TrimSpace(s)
	upper := strings.ToUpper(t)
	upper = strings.TrimSuffix(upper, "B")
	upper = strings.TrimSuffix(upper, "I")
	shift := 0
	if n := len(upper); n > 0 {
		if i := strings.IndexByte("KMGTPE", upper[n-1]); i >= 0 {
			shift = 10 * (i + 1)
			upper = upper[:n-1]
		} else if strings.HasSuffix(strings.ToUpper(t), "IB") {
			return 0, fmt.Errorf("invalid limit %q: a unit is K, M, G, T, P or E", s)
		}
	}
	v, err := strconv.ParseInt(upper, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid limit %q: want an integer such as 1100, 2T or -1", s)
	}
	if shift > 0 && (v > math.MaxInt64>>shift || v < math.MinInt64>>shift) {
		return 0, fmt.Errorf("invalid limit %q: out of range", s)
	}
	return v << shift, nil
}

// limits returns the limits that env (the value of PIPEFS_LIMITS) and
// the flags set on fs ask for, flags last.
func limits(fs *pflag.FlagSet, flags []*limitFlag, env string) (vfs.Limits, error) {
	var l vfs.Limits
	v := reflect.ValueOf(&l).Elem()
	set := func(field string, n int64) error {
		fv := v.FieldByName(field)
		if fv.OverflowInt(n) {
			return fmt.Errorf("%d is out of range for Limits.%s", n, field)
		}
		fv.SetInt(n)
		return nil
	}
	if strings.TrimSpace(env) != "" {
		for item := range strings.SplitSeq(env, ",") {
			if strings.TrimSpace(item) == "" {
				continue
			}
			key, val, ok := strings.Cut(item, "=")
			key = strings.TrimSpace(key)
			var f *limitFlag
			for _, c := range flags {
				if strings.EqualFold(key, c.field) || strings.EqualFold(strings.TrimPrefix(key, "--"), c.name) {
					f = c
				}
			}
			if !ok || f == nil {
				return l, fmt.Errorf("%s: %q is not FIELD=N with FIELD one of %s", LimitsEnv, item, fieldNames(flags))
			}
			n, err := ParseSize(val)
			if err != nil {
				return l, fmt.Errorf("%s: %s: %w", LimitsEnv, key, err)
			}
			if err := set(f.field, n); err != nil {
				return l, fmt.Errorf("%s: %w", LimitsEnv, err)
			}
		}
	}
	for _, f := range flags {
		if fs.Changed(f.name) {
			if err := set(f.field, f.value); err != nil {
				return l, fmt.Errorf("--%s: %w", f.name, err)
			}
		}
	}
	return l, nil
}

// fieldNames lists the fields that flags set.
func fieldNames(flags []*limitFlag) string {
	names := make([]string, len(flags))
	for i, f := range flags {
		names[i] = f.field
	}
	return strings.Join(names, ", ")
}

// limitField finds the name of the limit in the text of a limit error,
// such as "Limits.MaxRatio" or "Options.Limits.MaxEntries".
var limitField = regexp.MustCompile(`Limits\.(Max[A-Za-z]+)`)

// LiftAdvice returns what to add to the message of err, a limit error
// (vfs.ErrLimit), to say how to lift the limit it names: "; to lift the
// limit, pass --max-ratio=N (-1 for none) or set PIPEFS_LIMITS=MaxRatio=N".
// It returns "" for another error, or one that names no limit.
func LiftAdvice(err error) string {
	if !errors.Is(err, vfs.ErrLimit) {
		return ""
	}
	m := limitField.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	for _, f := range limitFields() {
		if f.field == m[1] {
			return fmt.Sprintf("; to lift the limit, pass --%s=N (-1 for none) or set %s=%s=N", f.name, LimitsEnv, f.field)
		}
	}
	return ""
}
