package main

import (
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs"
)

// completeURL completes the last path of a pipeline argument from the
// listing of the directory before it: "x.zip|zip:do" offers
// "x.zip|zip:docs/". A container file whose extension names a registered
// container format ("a.zip", "b.tar") is also offered with that format's
// adapter appended ("a.zip|zip:"), to step into it. After a "|" the
// registered adapter schemes are offered. An argument with no scheme and
// no adapter is a local path, left to the shell.
func (g *globals) completeURL(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if !strings.ContainsAny(toComplete, ":|") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	cut := strings.LastIndexAny(toComplete, "/:|") + 1
	dir, prefix := toComplete[:cut], toComplete[cut:]
	reg := vfs.DefaultRegistry
	if strings.HasSuffix(dir, "|") { // an adapter scheme
		return completeScheme(reg, dir, prefix), cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
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
	containers := containerAdapters(reg)
	var out []cobra.Completion
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if e.IsDir() {
			out = append(out, dir+name+"/")
			continue
		}
		out = append(out, dir+name)
		if ext := path.Ext(name); ext != "" {
			if adapter, ok := containers[strings.ToLower(ext[1:])]; ok {
				out = append(out, dir+name+"|"+adapter)
			}
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
