/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* The GIO module's entry points (gio(1) loads every lib*.so in its module directory
 * and in $GIO_EXTRA_MODULES). Only these three symbols are exported: by the version
 * script libgiopathd.map, not by attributes. They carry the module's own name, which
 * GIO derives from the file name (libgiopathd.so: "pathd", gio/giomodule-priv.c's
 * _g_io_module_extract_name): GLib's loader (load_symbols in gio/giomodule.c) and
 * gio-querymodules look for g_io_pathd_load, _unload and _query first, and only then
 * for the generic g_io_module_* that every module without its own names shares. */
#include <gio/gio.h>

#include "pathd-monitor.h"

void
g_io_pathd_load (GIOModule *module)
{
  pathd_network_monitor_register (module);
}

void
g_io_pathd_unload (GIOModule *module G_GNUC_UNUSED)
{
}

/* Lets gio-querymodules put the module in giomodule.cache, so that programs load it
 * only when they look for a network monitor. */
char **
g_io_pathd_query (void)
{
  char *extension_points[] = { G_NETWORK_MONITOR_EXTENSION_POINT_NAME, NULL };
  return g_strdupv (extension_points);
}
