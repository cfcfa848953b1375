package main

import "github.com/spf13/cobra"

// newExplainCmd returns the explain command.
func newExplainCmd(g *globals) *cobra.Command {
	return &cobra.Command{Use: "explain", Hidden: true, RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() }}
}
