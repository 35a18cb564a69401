# bash completion for pathctl(1): commands, options, interface types.
# Installed as bash-completion/completions/pathctl; works without bash-completion too.

_pathctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="status monitor wait interfaces route reload metrics history"
    local types="wifi cellular wiredEthernet wired ethernet loopback other"
    # "--socket=PATH" arrives as "--socket" "=" "PATH" (= is in COMP_WORDBREAKS).
    if [[ $cur == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD-1]}
        cur=
    elif [[ $prev == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    case $prev in
        --socket)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --require-type|--prohibit-type)
            COMPREPLY=($(compgen -W "$types" -- "$cur"))
            return ;;
        --format)
            COMPREPLY=($(compgen -W "openmetrics prometheus" -- "$cur"))
            return ;;
        --timeout|--since)
            COMPREPLY=()
            return ;;
    esac

    # The command is the first word that is neither an option nor an option's value.
    local command= i word
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            --socket|--require-type|--prohibit-type|--timeout|--format|--since)
                [[ ${COMP_WORDS[i+1]} == = ]] && ((i++))
                ((i++)) ;;
            -*) ;;
            *) command=$word; break ;;
        esac
    done

    local options="--socket --json --no-color --help --version"
    case $command in
        status) options+=" --require-type --prohibit-type --check" ;;
        monitor) options+=" --require-type --prohibit-type" ;;
        wait) options+=" --require-type --prohibit-type --timeout" ;;
        metrics) options+=" --format" ;;
        history) options+=" --since" ;;
    esac
    if [[ -z $command && $cur != -* ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    elif [[ $command == route && $cur != -* ]]; then
        # route HOST...: the host names bash knows ($HOSTFILE, else /etc/hosts).
        COMPREPLY=($(compgen -A hostname -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
    fi
}

complete -F _pathctl pathctl
