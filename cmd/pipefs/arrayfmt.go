package main

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/vfs"
)

// parseBox parses a box like "0:2,1:3" for an array of shape: one entry
// per leading axis, each "start:stop" (either may be omitted: ":" is the
// whole axis) or a single index "i" (i:i+1). Missing trailing entries mean
// whole axes. It returns the start and stop corners.
func parseBox(s string, shape []int64) (start, stop []int64, err error) {
	start, stop = make([]int64, len(shape)), append([]int64(nil), shape...)
	if strings.TrimSpace(s) == "" {
		return start, stop, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > len(shape) {
		return nil, nil, fmt.Errorf("box %q has %d entries for %d dimensions: %w", s, len(parts), len(shape), fs.ErrInvalid)
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		lo, hi, isRange := strings.Cut(p, ":")
		num := func(v string, def int64) (int64, error) {
			if v == "" {
				return def, nil
			}
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
		a, err := num(lo, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("box %q: %w", s, fs.ErrInvalid)
		}
		b := a + 1
		if isRange {
			if b, err = num(hi, shape[i]); err != nil {
				return nil, nil, fmt.Errorf("box %q: %w", s, fs.ErrInvalid)
			}
		}
		if a < 0 || b < a || b > shape[i] {
			return nil, nil, fmt.Errorf("box %q: axis %d range %d:%d outside 0:%d: %w", s, i, a, b, shape[i], fs.ErrInvalid)
		}
		start[i], stop[i] = a, b
	}
	return start, stop, nil
}

// parseChunk parses chunk coordinates like "1,0,2" (empty for a 0-d
// array).
func parseChunk(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return []int64{}, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("chunk %q: %w", s, fs.ErrInvalid)
		}
		out[i] = v
	}
	return out, nil
}

// registry is the registry that o opens pipelines with.
func registry(o *vfs.Options) *vfs.Registry {
	if o != nil && o.Registry != nil {
		return o.Registry
	}
	return vfs.DefaultRegistry
}
