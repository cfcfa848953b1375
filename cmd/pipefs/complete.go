package main

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/complete"
)

// defaultCompleteTimeout bounds one completion unless
// PIPEFS_COMPLETE_TIMEOUT says otherwise.
const defaultCompleteTimeout = 3 * time.Second

// completeTimeout returns how long one completion may take: the duration
// in PIPEFS_COMPLETE_TIMEOUT ("500ms", or a number of seconds), else
// defaultCompleteTimeout.
func completeTimeout() time.Duration {
	s := os.Getenv("PIPEFS_COMPLETE_TIMEOUT")
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		return time.Duration(f * float64(time.Second))
	}
	return defaultCompleteTimeout
}

// completer returns the completer of pipeline arguments: the global
// flags' options, and arguments read as the commands read them.
func (g *globals) completer() *complete.Completer {
	return &complete.Completer{Options: g.options(), Resolve: g.pipeline}
}

// completeURL completes a pipeline argument, at whatever layer it ends
// (see package internal/complete), within completeTimeout; one that
// fails or runs out of time offers nothing.
func (g *globals) completeURL(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, completeTimeout())
	defer cancel()
	out, err := g.completer().Complete(ctx, toComplete)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completeURLs completes the first n arguments as pipelines (all of them
// when n < 0); the next ones get no completion, or the shell's file
// completion when localNext is set.
func (g *globals) completeURLs(n int, localNext bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if n >= 0 && len(args) >= n {
			if localNext {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return g.completeURL(cmd, args, toComplete)
	}
}
