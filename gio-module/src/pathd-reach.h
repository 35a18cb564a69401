/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* can_reach: GLib's resolver (and proxy settings) name the addresses, pathd's `route`
 * answer judges each (docs/PROTOCOL.md, "route"). Knows nothing of the monitor: it is
 * given the socket and the default path's answer. */
#pragma once

#include <gio/gio.h>

#include "pathd-line.h"

/* TRUE when an address of `connectable` has a usable route; else the error GLib's own
 * backends return. `answer` decides when pathd cannot answer the route question. */
gboolean pathd_reach (const char *socket_path, const PathdAnswer *answer, GSocketConnectable *connectable,
                      GCancellable *cancellable, GError **error);

/* pathd_reach in a GTask thread, on copies of `socket_path` and `answer`; the
 * result's source object is `source_object` (the monitor), which the thread never
 * holds. */
void pathd_reach_async (gpointer source_object, const char *socket_path, const PathdAnswer *answer,
                        GSocketConnectable *connectable, GCancellable *cancellable, GAsyncReadyCallback callback,
                        gpointer user_data);

gboolean pathd_reach_finish (gpointer source_object, GAsyncResult *result, GError **error);
