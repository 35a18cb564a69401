# fish completion for pathctl(1). Installed in fish's vendor_completions.d.

set -l commands status monitor wait interfaces route reload metrics history
set -l types wifi cellular wiredEthernet wired ethernet loopback other

complete -c pathctl -f
complete -c pathctl -n "not __fish_seen_subcommand_from $commands" -a status -d 'show the current path'
complete -c pathctl -n "not __fish_seen_subcommand_from $commands" -a monitor -d 'print the path and every change until interrupted'
complete -c pathctl -n "not __fish_seen_subcommand_from $commands" -a wait -d 'wait until the path is satisfied'
complete -c pathctl -n "not __fish_seen_subcommand_from $commands" -a interfaces -d 'list the links pathd sees and why each is usable or not'
complete -c pathctl -n "not __fish_seen_subcommand_from $commands" -a route -d 'show the route to each address of HOST... and whether it is usable'
complete -c pathctl -n "not __fish_seen_subcommand_from $commands" -a reload -d 'make pathd read its configuration again'
complete -c pathctl -n "not __fish_seen_subcommand_from $commands" -a metrics -d "print pathd's metrics (OpenMetrics or Prometheus text)"
complete -c pathctl -n "not __fish_seen_subcommand_from $commands" -a history -d 'list the outages of the last path changes, and totals'

complete -c pathctl -l socket -r -F -d 'talk to pathd at this socket'
complete -c pathctl -l json -d "print the daemon's JSON lines instead of text"
complete -c pathctl -l no-color -d 'never colour the output'
complete -c pathctl -s h -l help -d 'show the help and exit'
complete -c pathctl -s V -l version -d 'show the versions of pathctl, pathd and the protocol'
complete -c pathctl -n '__fish_seen_subcommand_from status monitor wait' -l require-type -x -a "$types" -d 'only paths over this type count'
complete -c pathctl -n '__fish_seen_subcommand_from status monitor wait' -l prohibit-type -x -a "$types" -d 'paths over this type do not count'
complete -c pathctl -n '__fish_seen_subcommand_from status' -l check -d 'exit 1 unless the path is satisfied'
complete -c pathctl -n '__fish_seen_subcommand_from wait' -l timeout -x -d 'give up after this many seconds (default 30; 0 checks once)'
complete -c pathctl -n '__fish_seen_subcommand_from metrics' -l format -x -a 'openmetrics prometheus' -d 'exposition format'
complete -c pathctl -n '__fish_seen_subcommand_from route' -a '(__fish_print_hostnames)' -d 'host'
complete -c pathctl -n '__fish_seen_subcommand_from history' -l since -x -d 'list from this time on (2026-12-01 03:00, yesterday, -2h)'
