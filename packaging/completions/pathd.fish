# fish completion for pathd(8). Installed in fish's vendor_completions.d.

complete -c pathd -f
complete -c pathd -l config -r -F -d 'main configuration file'
complete -c pathd -l check-config -d 'validate the configuration, print it and exit'
complete -c pathd -l socket -r -F -d 'listen on this socket'
complete -c pathd -l lookup-ipv4 -x -d 'destination of the IPv4 route lookup'
complete -c pathd -l lookup-ipv6 -x -d 'destination of the IPv6 route lookup'
complete -c pathd -l receive-buffer -x -d 'netlink receive buffer (K, M or G suffix)'
complete -c pathd -l resolv-conf -r -F -d 'resolver configuration to watch'
complete -c pathd -l upstream-resolv-conf -r -F -d 'systemd-resolved upstream servers'
complete -c pathd -l max-clients -x -d 'clients served at once'
complete -c pathd -l max-clients-per-user -x -d 'connections one other user may hold'
complete -c pathd -l max-subscriptions-per-client -x -d 'subscriptions one connection may hold'
complete -c pathd -l client-queue-limit -x -d 'unread path and resync bytes before a disconnect'
complete -c pathd -l log-level -x -a 'error warning notice info debug' -d 'log threshold'
complete -c pathd -s h -l help -d 'show the help and exit'
complete -c pathd -s V -l version -d 'show the version and exit'
