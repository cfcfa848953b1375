package complete

import (
	"fmt"
	"strings"
)

// BashScript returns the bash completion script for the program name,
// whose hidden command cmd completes a bash line (see BashReplies). It
// passes COMP_WORDBREAKS and the line before the cursor to cmd and takes
// its lines as they are: bash inserts them without quoting them, and
// appends nothing.
func BashScript(name, cmd string) string {
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
`, name, fn, cmd)
}

// ZshScript returns the zsh completion script for the program name. It
// runs __complete on the words before the cursor, unquoted, and adds the
// candidates with compadd, which quotes them for the command line: those
// that go on (a directory, an adapter) without a space after them.
func ZshScript(name string) string {
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

// FishScript returns the fish completion script for the program name. It
// runs __complete on the tokens before the cursor and the current one,
// unescaped; fish escapes what it inserts, and adds no space after a
// candidate that ends in "/" or ":".
func FishScript(name string) string {
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
