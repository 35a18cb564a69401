/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* The line handler: one line from pathd in, what it says out. Pure (no I/O, no
 * state), so that it can be unit-tested and fuzzed on its own (see ../README.md). */
#pragma once

#include <gio/gio.h>

/* Longest line the module accepts from pathd; past it the connection is dropped
 * (framing is lost) rather than the buffer grown. */
#define PATHD_LINE_MAX (1024 * 1024)

/* Deepest nesting of arrays and objects parsed; deeper lines are refused before
 * json-glib, whose parser recurses, ever sees them. */
#define PATHD_LINE_MAX_DEPTH 64

typedef enum {
  PATHD_LINE_INVALID, /* not a JSON object, or a known message with a field of the wrong type */
  PATHD_LINE_IGNORED, /* a message the module has no use for (resync, pong, new types, ...) */
  PATHD_LINE_HELLO,   /* hello, protocol 1 */
  PATHD_LINE_PATH,    /* a path line: `answer` is set */
  PATHD_LINE_ROUTE,   /* a route reply: `route_usable` is set */
  PATHD_LINE_ERROR,   /* an error message: `shutting_down` is set */
} PathdLineKind;

/* Bytes of `PathdAnswer.traffic`: a SHA-256 digest. */
#define PATHD_TRAFFIC_DIGEST 32

/* What GNetworkMonitor reports, derived from one path line. */
typedef struct {
  gboolean available;
  gboolean metered;
  GNetworkConnectivity connectivity;
  /* Where traffic goes: a digest of the path's first interface (name and index) and its
   * gateways. Not a property; a change of it alone is a network-changed (README.md,
   * "Mapping"). A digest keeps the struct plain: no allocation to free per line. */
  guint8 traffic[PATHD_TRAFFIC_DIGEST];
} PathdAnswer;

typedef struct {
  PathdLineKind kind;
  PathdAnswer answer;     /* PATHD_LINE_PATH only */
  gboolean route_usable;  /* PATHD_LINE_ROUTE only */
  gboolean shutting_down; /* PATHD_LINE_ERROR only: code shuttingDown */
} PathdLine;

/* Called with each complete line (without its newline); FALSE stops the framing. */
typedef gboolean (*PathdLineFunc) (const char *data, gsize length, gpointer user_data);

typedef enum {
  PATHD_LINES_MORE,     /* every complete line was taken; an incomplete one may wait in the buffer */
  PATHD_LINES_STOPPED,  /* the function returned FALSE; the buffer is emptied */
  PATHD_LINES_TOO_LONG, /* an incomplete line passed `max` bytes: framing is lost */
} PathdLinesResult;

/* The framing of both of the module's connections (the subscription and a route
 * question): appends `count` bytes to `buffer`, calls `each` for every line they
 * complete, and keeps the bytes after the last newline for the next call. */
PathdLinesResult pathd_lines_take (GByteArray *buffer, const guint8 *bytes, gsize count, gsize max,
                                   PathdLineFunc each, gpointer user_data);

/* Parses `length` bytes (no newline; need not be NUL-terminated or valid UTF-8). */
void pathd_line_parse (const char *data, gsize length, PathdLine *line);

/* Whether the three properties (available, metered, connectivity) are the same. */
gboolean pathd_answer_equal (const PathdAnswer *a, const PathdAnswer *b);

/* Whether traffic goes through the same first interface and gateways. */
gboolean pathd_answer_same_traffic (const PathdAnswer *a, const PathdAnswer *b);

/* Whether a path or route status lets traffic flow: satisfied, or requiresConnection
 * (an on-demand link that traffic brings up). Any other status, one newer than this
 * module included, does not (docs/PROTOCOL.md, "Version": treat it as unsatisfied). */
gboolean pathd_status_is_usable (const char *status);
