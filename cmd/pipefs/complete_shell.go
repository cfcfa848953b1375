package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
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
func setupCompletion(root *cobra.Command, g *globals) {
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newCompletionCmd(), newCompleteBashCmd(g))
}

// newCompletionCmd returns the completion command.
func newCompletionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print the shell completion script for bash, zsh, fish or powershell",
		Long: `completion prints a script that makes the shell complete pipefs's
commands, flags and pipelines, at every layer: local paths, the entries
of an archive or a bucket, the adapters that fit what is before a "|"
(detected from its bytes), and the versions of an OCDBT database or the
branches and tags of an Icechunk repository. A name holding "%", "|",
"#" or "?" is completed as %25, %7C, %23 or %3F, and a control
character (a newline, a tab) as %0A, %09. Each completion gives
up after 3 seconds (PIPEFS_COMPLETE_TIMEOUT, such as "500ms" or "10")
and then offers nothing.

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
				_, err := io.WriteString(w, bashScript(root.Name()))
				return err
			case "zsh":
				_, err := io.WriteString(w, zshScript(root.Name()))
				return err
			case "fish":
				_, err := io.WriteString(w, fishScript(root.Name()))
				return err
			case "powershell":
				return root.GenPowerShellCompletion(w)
			}
			return usageError{fmt.Errorf("unknown shell %q: want bash, zsh, fish or powershell", args[0])}
		},
	}
	return cmd
}

// bashScript returns the bash completion script for the program name.
// It passes the line before the cursor and COMP_WORDBREAKS to
// __complete-bash and takes its lines as they are: bash inserts them
// without quoting them, and appends nothing.
func bashScript(name string) string {
	fn := "_" + strings.NewReplacer("-", "_", ".", "_").Replace(name) + "_complete"
	return fmt.Sprintf(`# bash completion for %[1]s; source it, or put it in a bash-completion directory.
%[2]s() {
    local cmd=${COMP_WORDS[0]:-%[1]s}
    COMPREPLY=()
    local line
    while IFS= read -r line; do
        COMPREPLY+=("$line")
    done < <("$cmd" %[3]s "$COMP_WORDBREAKS" "${COMP_LINE:0:COMP_POINT}" 2>/dev/null)
}
complete -o nospace -F %[2]s %[1]s
`, name, fn, completeBashCmd)
}

// zshScript returns the zsh completion script for the program name. It
// runs __complete on the words before the cursor, unquoted, and adds the
// candidates with compadd, which quotes them for the command line: those
// that go on (a directory, an adapter) without a space after them.
func zshScript(name string) string {
	fn := "_" + strings.NewReplacer("-", "_", ".", "_").Replace(name)
	return fmt.Sprintf(`#compdef %[1]s
# zsh completion for %[1]s; source it after compinit, or put it in $fpath as _%[1]s.
%[2]s() {
    local -a args out cands more
    local i directive c
    for (( i = 2; i < CURRENT; i++ )); do
        args+=("${(Q)words[i]}")
    done
    args+=("${(Q)PREFIX}")
    out=("${(@f)$("${(Q)words[1]}" __complete "${args[@]}" 2>/dev/null)}")
    [[ ${out[-1]} == :* ]] || return 1
    directive=${out[-1]#:}
    (( directive & 1 )) && return 1
    for c in "${(@)out[1,-2]}"; do
        c=${c%%%%$'	'*}
        [[ -n $c ]] || continue
        if (( directive & 2 )) && [[ $c == */ || $c == *: || $c == *'|' ]]; then
            more+=("$c")
        else
            cands+=("$c")
        fi
    done
    if (( ${#cands} + ${#more} == 0 )); then
        (( directive & 4 )) && return 1
        _files
        return
    fi
    (( ${#more} )) && compadd -S '' -- "${more[@]}"
    (( ${#cands} )) && compadd -- "${cands[@]}"
    return 0
}
if [[ $funcstack[1] == %[2]s ]]; then
    %[2]s "$@"
else
    compdef %[2]s %[1]s
fi
`, name, fn)
}

// fishScript returns the fish completion script for the program name. It
// runs __complete on the tokens before the cursor and the current one,
// unescaped; fish escapes what it inserts, and adds no space after a
// candidate that ends in "/" or ":".
func fishScript(name string) string {
	fn := "__" + strings.NewReplacer("-", "_", ".", "_").Replace(name) + "_complete"
	return fmt.Sprintf(`# fish completion for %[1]s; source it, or put it in ~/.config/fish/completions/%[1]s.fish.
function %[2]s
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct | string unescape)
    set -l out ($tokens[1] __complete $tokens[2..-1] "$cur" 2>/dev/null)
    string match -qr '^:[0-9]+$' -- "$out[-1]"; or return
    set -l directive (string sub -s 2 -- $out[-1])
    if test (math "bitand($directive, 1)") -ne 0
        return
    end
    if test (count $out) -eq 1
        if test (math "bitand($directive, 4)") -eq 0
            __fish_complete_path "$cur"
        end
        return
    end
    printf '%%s
' $out[1..-2]
end
complete -c %[1]s -f -a '(%[2]s)'
`, name, fn)
}

// newCompleteBashCmd returns the hidden command that completes a bash
// command line: its arguments are COMP_WORDBREAKS and the line up to the
// cursor. It splits the line into words as bash does, completes the last
// one as __complete would, and prints each candidate as the text that
// replaces what readline takes as the word being completed (which starts
// after an unclosed quote or the last unquoted word-break character, ":"
// and "|" among them), quoted for where it goes. A lone candidate that
// ends the argument gets a space, or, in a quote, the closing quote that
// readline adds (or that it leaves out, after text that ends in the
// quote character: then it is printed here).
func newCompleteBashCmd(g *globals) *cobra.Command {
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
			wordbreaks, line := args[0], args[1]
			words := splitLine(line).words
			if len(words) < 2 {
				return nil
			}
			cands, directive := completeWords(cmd, g, words[1:])
			start := readlineStart(line, wordbreaks)
			pre := splitLine(line[:start])
			done := pre.words[len(pre.words)-1] // the part of the word that stays
			if len(pre.words) != len(words) {
				done = ""
			}
			var out []string
			for _, c := range cands {
				if strings.HasPrefix(c, done) {
					out = append(out, quoteFor(pre.quote, c[len(done):]))
				}
			}
			if len(out) == 1 {
				final := directive&cobra.ShellCompDirectiveNoSpace == 0 || !continues(cands[0])
				switch {
				case pre.quote == 0 && final:
					out[0] += " "
				case pre.quote != 0 && final && strings.HasSuffix(out[0], string(pre.quote)):
					// Readline adds no closing quote after text
					// that ends in the quote character (a quoted
					// one, as in '\'' or \"): close it here.
					out[0] += string(pre.quote)
				case pre.quote != 0 && !final:
					// Readline closes the quote after a lone match: a
					// second one, which differs by a trailing blank,
					// keeps it open for what comes next.
					out = append(out, out[0]+" ")
				}
			}
			w := cmd.OutOrStdout()
			for _, s := range out {
				fmt.Fprintln(w, s)
			}
			return nil
		},
	}
}

// continues reports whether a completed pipeline goes on: a directory, an
// adapter waiting for its path or its next sub-URL.
func continues(s string) bool {
	return strings.HasSuffix(s, "/") || strings.HasSuffix(s, ":") || strings.HasSuffix(s, "|")
}

// completeWords completes the last of args (the words after the program
// name) by running __complete on them, and returns the candidates and
// the directive. Where the shell's file completion is asked for, local
// paths are listed here.
func completeWords(cmd *cobra.Command, g *globals, args []string) ([]string, cobra.ShellCompDirective) {
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
		c := &completer{g: g, ctx: cmd.Context(), plain: true}
		cands, _ = c.local(args[len(args)-1])
		return cands, cobra.ShellCompDirectiveNoSpace
	}
	return cands, directive
}
