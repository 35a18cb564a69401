/* SPDX-License-Identifier: Apache-2.0 */
// libsystemd's sd-daemon(3) API, for the daemon only (sd_notify, sd_listen_fds). No
// client program links this module.
#ifndef PATHD_CSYSTEMD_SHIM_H
#define PATHD_CSYSTEMD_SHIM_H

#include <systemd/sd-daemon.h>

/// sd_notify with a fixed string; sd_notifyf is variadic and not imported.
static inline int pathd_sd_notify(const char *state) { return sd_notify(0, state); }

#endif
