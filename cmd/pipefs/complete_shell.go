package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/complete"
)

// completeBashCmd is the hidden command that pipefs's bash completion
// script runs.
const completeBashCmd = "__complete-bash"

// setupCompletion replaces cobra's completion command with pipefs's. bash
// gets a script of its own, which hands the command line to the hidden
// command __complete-bash (see newCompleteBashCmd). zsh and fish get
// scripts of their own too, which pass the words to __complete with their
// quotes removed and let the shell quote what it inserts (cobra's pass
// the current word through eval, which an open quote breaks); PowerShell
// gets cobra's.
func setupCompletion(root *cobra.Command) {
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newCompletionCmd(), newCompleteBashCmd())
}

// newCompletionCmd returns the completion command.
func newCompletionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print the shell completion script for bash, zsh, fish or powershell",
		Long: `completion prints a script that makes the shell complete pipefs's
commands, flags and pipelines, at every layer: local paths, the entries
of an archive or a bucket, the adapters that fit what is before a "|"
(detected from its bytes, chained through every compressed stream:
"x.tar.bz2|" offers "pipefs.bzip2:|pipefs.tar:"), and the versions of an
OCDBT database or the branches and tags of an Icechunk repository. A
file that pipefs opens as a container, a dataset or an image is offered
with its "|adapter:" continuations, so the line goes on after it with
no quote closed and no space added. A name holding "%", "|", "#" or "?"
is completed as %25, %7C, %23 or %3F, and a control character (a
newline, a tab) as %0A, %09. Each completion gives up after 3 seconds
(PIPEFS_COMPLETE_TIMEOUT, such as "500ms" or "10"); detection gets two
thirds of that, after which the adapters a name suggests by its
extensions are offered, and a completion that runs out of time offers
nothing.

Install it for each shell:

  bash  (needs bash-completion, or source it from ~/.bashrc):
        pipefs completion bash > ~/.local/share/bash-completion/completions/pipefs
        or, in ~/.bashrc: source <(pipefs completion bash)
  zsh   (compinit must be on):
        pipefs completion zsh > "${fpath[1]}/_pipefs"
        or, in ~/.zshrc after compinit: source <(pipefs completion zsh)
  fish:
        pipefs completion fish > ~/.config/fish/completions/pipefs.fish
  powershell:
        pipefs completion powershell | Out-String | Invoke-Expression

In bash a pipeline may be typed quoted ('a.zip|zip:d<TAB>) or with
its "|" escaped (a.zip\|zip:d<TAB>); completion quotes what it inserts
to match.`,
		Example: `  source <(pipefs completion bash)
  pipefs completion fish > ~/.config/fish/completions/pipefs.fish`,
		Args:      args(cobra.ExactArgs(1)),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, w := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				_, err := io.WriteString(w, complete.BashScript(root.Name(), completeBashCmd))
				return err
			case "zsh":
				_, err := io.WriteString(w, complete.ZshScript(root.Name()))
				return err
			case "fish":
				_, err := io.WriteString(w, complete.FishScript(root.Name()))
				return err
			case "powershell":
				return root.GenPowerShellCompletion(w)
			}
			return usageError{fmt.Errorf("unknown shell %q: want bash, zsh, fish or powershell", args[0])}
		},
	}
	return cmd
}

// newCompleteBashCmd returns the hidden command that completes a bash
// command line: its arguments are COMP_WORDBREAKS and the line up to the
// cursor, and it prints what complete.BashReplies gives, a line each.
func newCompleteBashCmd() *cobra.Command {
	return &cobra.Command{
		Use:    completeBashCmd + " WORDBREAKS LINE",
		Short:  "Complete a bash command line (used by the bash completion script)",
		Hidden: true,
		Args:   args(cobra.ExactArgs(2)),
		// No flag of the line is this command's.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return nil
			}
			out := complete.BashReplies(args[1], args[0], func(words []string) ([]string, bool) {
				cands, directive := completeWords(cmd, words)
				return cands, directive&cobra.ShellCompDirectiveNoSpace != 0
			})
			w := cmd.OutOrStdout()
			for _, s := range out {
				fmt.Fprintln(w, s)
			}
			return nil
		},
	}
}

// completeWords completes the last of args (the words after the program
// name) by running __complete on them, and returns the candidates and
// the directive. Where the shell's file completion is asked for, local
// paths are listed here.
func completeWords(cmd *cobra.Command, args []string) ([]string, cobra.ShellCompDirective) {
	root, _ := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(io.Discard)
	root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, args...))
	if err := root.ExecuteContext(cmd.Context()); err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		return nil, cobra.ShellCompDirectiveError
	}
	d, err := strconv.Atoi(lines[len(lines)-1][1:])
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	directive := cobra.ShellCompDirective(d)
	var cands []string
	for _, l := range lines[:len(lines)-1] {
		if l, _, _ = strings.Cut(l, "\t"); l != "" {
			cands = append(cands, l)
		}
	}
	switch {
	case directive&cobra.ShellCompDirectiveError != 0:
		return nil, directive
	case len(cands) == 0 && directive&(cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveFilterDirs|cobra.ShellCompDirectiveFilterFileExt) == 0:
		// The shell's file completion: local paths, nothing more.
		cands, _ = complete.Local(args[len(args)-1])
		return cands, cobra.ShellCompDirectiveNoSpace
	}
	return cands, directive
}
