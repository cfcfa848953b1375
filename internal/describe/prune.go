package describe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// zeroTime is the zero time.Time as encoding/json writes it.
const zeroTime = `0001-01-01T00:00:00Z`

// Prune returns the JSON value raw without the members of its objects
// whose value is zero (0, false, "", null, the zero time, an empty array
// or object), at every level, or nil when raw itself is zero. Array
// elements are all kept: their positions matter.
func Prune(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	out, zero, err := prune(dec)
	if err != nil || zero {
		return nil, err
	}
	return out, nil
}

// prune reads one JSON value from dec and returns it pruned, and whether
// the value itself is zero.
func prune(dec *json.Decoder) (out []byte, zero bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, false, err
	}
	switch t := tok.(type) {
	case json.Delim:
		var b bytes.Buffer
		n := 0
		if t == '{' {
			b.WriteByte('{')
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, false, err
				}
				v, vz, err := prune(dec)
				if err != nil {
					return nil, false, err
				}
				if vz {
					continue
				}
				if n > 0 {
					b.WriteByte(',')
				}
				key, _ := Marshal(k)
				b.Write(key)
				b.WriteByte(':')
				b.Write(v)
				n++
			}
			b.WriteByte('}')
		} else {
			b.WriteByte('[')
			for dec.More() {
				v, _, err := prune(dec)
				if err != nil {
					return nil, false, err
				}
				if n > 0 {
					b.WriteByte(',')
				}
				b.Write(v)
				n++
			}
			b.WriteByte(']')
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, false, err
		}
		return b.Bytes(), n == 0, nil
	case nil:
		return []byte("null"), true, nil
	case bool:
		return []byte(strconv.FormatBool(t)), !t, nil
	case json.Number:
		f, err := t.Float64()
		return []byte(t), err == nil && f == 0, nil
	case string:
		s, err := Marshal(t)
		return s, t == "" || t == zeroTime, err
	}
	return nil, false, fmt.Errorf("unexpected JSON token %v", tok)
}
