package main

import "github.com/spf13/cobra"

// newMountCmd returns the mount command.
func newMountCmd(g *globals) *cobra.Command {
	return &cobra.Command{Use: "mount", Hidden: true, RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() }}
}
