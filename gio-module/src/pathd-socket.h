/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* Where pathd listens and how the module connects to it (docs/PROTOCOL.md, "Where the
 * socket is"). */
#pragma once

#include <gio/gio.h>

/* The sockets to try, in docs/PROTOCOL.md's order ("Where the socket is"). Free with
 * g_strfreev. */
char **pathd_socket_candidates (void);

/* A non-blocking, close-on-exec stream socket connected to `path`, or NULL. Never
 * waits: a listener whose backlog is full is an error, not a wait. */
GSocket *pathd_socket_connect (const char *path, GError **error);

/* Sends all of `text` on a socket whose send buffer is known to be empty (a fresh
 * connection); FALSE when it could not be sent at once. */
gboolean pathd_socket_send_all (GSocket *socket, const char *text, GError **error);
