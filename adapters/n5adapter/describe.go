package n5adapter

import "github.com/pipefs/pipefs/adapters/array"

// describer carries what describing one node needs; its methods parse the
// format's metadata.
type describer struct{ array.Describer }
