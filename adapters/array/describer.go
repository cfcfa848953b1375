package array

import (
	"context"

	"github.com/pipefs/pipefs/vfs"
)

// A Describer carries what one Format.Describe call needs: the Source, the
// call's context, and the limits with defaults filled in. Formats embed it
// in a type of their own, on which they define their parsers.
type Describer struct {
	Ctx      context.Context
	Src      *Source
	Lim      vfs.Limits // Src.Limits, as Limits.Effective gives them
	Children bool       // Src.Children: list the node's children too
}

// NewDescriber returns the Describer of one Describe call over src.
func NewDescriber(ctx context.Context, src *Source) Describer {
	return Describer{Ctx: ctx, Src: src, Lim: src.Limits.Effective(), Children: src.Children}
}

// Exists is Src.Exists with the call's context.
func (d Describer) Exists(name string) (bool, error) { return d.Src.Exists(d.Ctx, name) }

// ReadFile is Src.ReadFile with the call's context.
func (d Describer) ReadFile(name string) ([]byte, error) { return d.Src.ReadFile(d.Ctx, name) }

// ReadJSON is Src.ReadJSON with the call's context.
func (d Describer) ReadJSON(name string, v any) ([]byte, error) {
	return d.Src.ReadJSON(d.Ctx, name, v)
}

// Subdirs is Src.Subdirs with the call's context.
func (d Describer) Subdirs(dir string, metas ...string) ([]string, error) {
	return d.Src.Subdirs(d.Ctx, dir, metas...)
}
