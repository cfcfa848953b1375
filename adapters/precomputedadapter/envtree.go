package precomputedadapter

import (
	"context"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// envTree is the volume's directory as the adapter opens it, carrying
// what the readers of its sharded scales keep their indexes in: the
// pipeline's vfs.Cache and the input's vfs.Env.Key. Node.Child describes
// a scale in the same tree, so its reader finds them too.
type envTree struct {
	driver.Tree
	cache *vfs.Cache
	key   string
}

// openDir is the adapter's OpenDir: array.AdapterOpen over the base
// directory wrapped in an envTree.
func openDir(ctx context.Context, base driver.Tree, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	return array.AdapterOpen(FormatPrecomputed)(ctx, &envTree{Tree: base, cache: env.Cache, key: env.Key}, u, env)
}

// indexCache returns the cache that the scale's shard indexes are kept
// in, and the name of the volume in its keys: the pipeline's, when t is
// an envTree with a Key, or else the default cache and own, a name no
// other description shares.
func indexCache(t driver.Tree, scale string, own any) (*vfs.Cache, any) {
	if e, ok := t.(*envTree); ok && e.cache != nil {
		if e.key != "" {
			return e.cache, e.key + "\x00" + scale
		}
		return e.cache, own
	}
	return vfs.DefaultCache(), own
}
