package browse

import (
	_ "github.com/pipefs/pipefs/all" // every root and adapter, as the CLI registers them
)
