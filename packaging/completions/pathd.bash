# bash completion for pathd(8). Installed as bash-completion/completions/pathd.

_pathd() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    case $prev in
        --config|--socket|--resolv-conf|--upstream-resolv-conf|--metrics-file)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --log-level)
            COMPREPLY=($(compgen -W "error warning notice info debug" -- "$cur"))
            return ;;
        --lookup-ipv4|--lookup-ipv6|--receive-buffer|--max-clients|--max-clients-per-user|\
        --max-subscriptions-per-client|--client-queue-limit|--history-size)
            COMPREPLY=()
            return ;;
    esac
    COMPREPLY=($(compgen -W "--config --check-config --socket --lookup-ipv4 --lookup-ipv6
        --receive-buffer --resolv-conf --upstream-resolv-conf --max-clients --max-clients-per-user
        --max-subscriptions-per-client --client-queue-limit --log-level --metrics-file --history-size
        --help --version" -- "$cur"))
}

complete -F _pathd pathd
