/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* One `route` question to pathd (docs/PROTOCOL.md, "route") on a short connection of
 * its own, bounded in time and size. */
#pragma once

#include <gio/gio.h>

/* How long one exchange may take, connect to reply, in seconds (GSocket's unit). */
#define PATHD_ROUTE_TIMEOUT_S 2

/* Longest reply line accepted. */
#define PATHD_ROUTE_REPLY_MAX (64 * 1024)

/* `address`'s zone (its scope id, for a link-local IPv6 address) is asked about too:
 * fe80::1%2 may be routable through one link and not another.
 * TRUE with `*usable` set when pathd answered; FALSE with `error` when it could not
 * (not running, too slow, or an error reply such as unknownOp from an older pathd).
 * Blocks (for PATHD_ROUTE_TIMEOUT_S at most per step): can_reach_async runs it in a
 * GTask thread (pathd-reach.c). */
gboolean pathd_route_query (const char *socket_path, GInetSocketAddress *address, gboolean *usable,
                            GCancellable *cancellable, GError **error);

