# fish completion for pathd(8). Installed in fish's vendor_completions.d.
#
# The options and what each takes come from `pathd --help` (the [Daemon] keys table
# derives them), so a new key needs no change here.

complete -c pathd -f
command -q pathd; and for line in (pathd --help 2>/dev/null | string match -r '^  (?:-[A-Za-z], )?--[a-z][a-z0-9-]*.*')
    set -l flag (string replace -r '^  (?:-[A-Za-z], )?--([a-z0-9-]+).*' '$1' -- $line)
    set -l value (string replace -r '^  (?:-[A-Za-z], )?--[a-z0-9-]+(?: ([A-Z]+))?.*' '$1' -- $line)
    switch "$value"
        case PATH
            complete -c pathd -l $flag -r -F
        case LEVEL
            complete -c pathd -l $flag -x -a 'error warning notice info debug' -d 'log threshold'
        case ''
            complete -c pathd -l $flag
        case '*'
            complete -c pathd -l $flag -x
    end
end
