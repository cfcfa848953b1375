package main

import "github.com/spf13/cobra"

// newArcpCmd returns the arcp command.
func newArcpCmd(g *globals) *cobra.Command {
	return &cobra.Command{Use: "arcp", Hidden: true, RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() }}
}
