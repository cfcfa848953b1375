package precomputedadapter

import (
	"context"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
)

// describer carries what describing one node needs.
type describer struct {
	ctx context.Context
	src *array.Source
	lim vfs.Limits
}

func newDescriber(ctx context.Context, src *array.Source) *describer {
	return &describer{ctx: ctx, src: src, lim: src.Limits.Effective()}
}

func (d *describer) readJSON(name string, v any) ([]byte, error) {
	return d.src.ReadJSON(d.ctx, name, v)
}
