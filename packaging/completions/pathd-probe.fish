# fish completion for pathd-probe(8). Installed in fish's vendor_completions.d.

complete -c pathd-probe -f
complete -c pathd-probe -l socket -r -F -d 'pathd socket'
complete -c pathd-probe -l config -r -F -d 'configuration file with the Connectivity section'
complete -c pathd-probe -s h -l help -d 'show the help and exit'
complete -c pathd-probe -s V -l version -d 'show the version and exit'
