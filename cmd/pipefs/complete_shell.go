package main

import "github.com/spf13/cobra"

// setupCompletion adjusts the shell completion of the root command.
func setupCompletion(root *cobra.Command, g *globals) {}
