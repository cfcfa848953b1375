package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs/deep"
)

// deepFlags are the flags of a deep listing: ls and tree --deep.
type deepFlags struct {
	on    bool
	depth int
	cmd   *cobra.Command // the command the flags belong to
}

func (d *deepFlags) add(cmd *cobra.Command) {
	d.cmd = cmd
	cmd.Flags().BoolVar(&d.on, "deep", false, "list container files (zip, tar, tar.gz, HDF5, ...) as the directories they hold")
	cmd.Flags().IntVar(&d.depth, "depth", deep.DefaultDepth, "with --deep, open containers nested at most `N` deep")
}

// deepOptions returns the options of the walk of a listing: containers
// opened --depth deep with --deep, none without; or a usage error for a
// negative --depth or one without --deep.
func (g *globals) deepOptions(d deepFlags) (*deep.Options, error) {
	if d.depth < 0 {
		return nil, usageError{fmt.Errorf("--depth %d: want 0 or more", d.depth)}
	}
	if !d.on && d.cmd != nil && d.cmd.Flags().Changed("depth") {
		// Not a bound on -R: say so rather than list everything.
		return nil, usageError{errors.New("--depth goes with --deep: it bounds how many containers deep --deep opens")}
	}
	o := &deep.Options{Depth: -1, Registry: registry(g.options())}
	if d.on && d.depth > 0 {
		o.Depth = d.depth
	}
	return o, nil
}
