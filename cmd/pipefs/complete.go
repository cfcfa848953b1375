package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// completeURL completes the last path of a pipeline argument from the
// listing of the directory before it: "x.zip|zip:do" offers
// "x.zip|zip:docs/". A zip file is also offered with "|zip:" appended, to
// step into it. An argument with no scheme and no adapter is a local path,
// left to the shell.
func (g *globals) completeURL(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if !strings.ContainsAny(toComplete, ":|") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	cut := strings.LastIndexAny(toComplete, "/:|") + 1
	dir, prefix := toComplete[:cut], toComplete[cut:]
	if strings.HasSuffix(dir, "|") {
		return nil, cobra.ShellCompDirectiveNoFileComp // an adapter name
	}
	loc, err := g.openLocation(cmd.Context(), dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	defer loc.Close()
	if loc.fsys == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ents, err := loc.fsys.ReadDir(".")
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	var out []cobra.Completion
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		switch {
		case e.IsDir():
			out = append(out, dir+name+"/")
		case strings.HasSuffix(strings.ToLower(name), ".zip"):
			out = append(out, dir+name, dir+name+"|zip:")
		default:
			out = append(out, dir+name)
		}
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
