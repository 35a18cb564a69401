/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* PathdNetworkMonitor: GNetworkMonitor answered from pathd's default path. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define PATHD_TYPE_NETWORK_MONITOR (pathd_network_monitor_get_type ())
G_DECLARE_FINAL_TYPE (PathdNetworkMonitor, pathd_network_monitor, PATHD, NETWORK_MONITOR, GObject)

/* How long GInitable init waits, in all, for a pathd to greet and send the first
 * path before declining (documented in ../README.md). */
#define PATHD_INIT_TIMEOUT_MS 500

/* Reconnection back-off while pathd is away: the first wait, its cap, and how much of
 * each wait (in percent) is taken off at random. docs/PROTOCOL.md, "Reconnecting", is
 * the contract: Tests/ClientLibraryTests/BackoffTests.swift holds these to it. */
#define PATHD_RETRY_FIRST_MS 100
#define PATHD_RETRY_CAP_MS 5000
#define PATHD_RETRY_JITTER_PERCENT 20

/* Priority at the gio-network-monitor extension point: above NetworkManager's 30,
 * below the portal's 40 (a sandboxed app asks the portal, which asks the host). */
#define PATHD_EXTENSION_PRIORITY 35

void pathd_network_monitor_register (GIOModule *module);

G_END_DECLS
