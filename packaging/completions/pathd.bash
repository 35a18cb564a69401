# bash completion for pathd(8). Installed as bash-completion/completions/pathd.
#
# The options and what each takes come from `pathd --help` (the [Daemon] keys table
# derives them), so a new key needs no change here.

_pathd() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    if [[ $prev == --log-level ]]; then
        COMPREPLY=($(compgen -W "error warning notice info debug" -- "$cur"))
        return
    fi
    local help
    help=$("${COMP_WORDS[0]}" --help 2>/dev/null)
    # "  --socket PATH  listen on …": PATH completes file names; other values nothing.
    if [[ $prev == --[a-z]* && $prev != *[!a-z0-9-]* ]]; then
        case $(sed -nE "s/^  (-[A-Za-z], )?$prev ([A-Z]+).*/\\2/p" <<<"$help") in
            PATH) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            ?*) COMPREPLY=(); return ;;
        esac
    fi
    COMPREPLY=($(compgen -W "$(sed -nE 's/^  (-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\2/p' <<<"$help")" -- "$cur"))
}

complete -F _pathd pathd
