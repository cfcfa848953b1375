package n5adapter

import (
	"context"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
)

// describer carries what describing one node needs.
type describer struct {
	ctx      context.Context
	src      *array.Source
	lim      vfs.Limits
	children bool
}

func newDescriber(ctx context.Context, src *array.Source) *describer {
	return &describer{ctx: ctx, src: src, lim: src.Limits.Effective(), children: src.Children}
}

func (d *describer) readFile(name string) ([]byte, error) { return d.src.ReadFile(d.ctx, name) }

func (d *describer) subdirs(dir string, metas ...string) ([]string, error) {
	return d.src.Subdirs(d.ctx, dir, metas...)
}
