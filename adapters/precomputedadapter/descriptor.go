package precomputedadapter

import "github.com/pipefs/pipefs/adapters/array"

// volume is the Source of the node of a precomputed volume: a group whose
// children are its scales, read through the volume (Node.Child).
type volume struct{}

var _ array.Composite = volume{}

// PartsName names the parts of a volume: its scales.
func (volume) PartsName() string { return "scales" }
