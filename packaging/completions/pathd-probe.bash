# bash completion for pathd-probe(8). Installed as bash-completion/completions/pathd-probe.

_pathd_probe() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    case $prev in
        --config|--socket)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
    esac
    COMPREPLY=($(compgen -W "--socket --config --help --version" -- "$cur"))
}

complete -F _pathd_probe pathd-probe
