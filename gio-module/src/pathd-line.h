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

/* What GNetworkMonitor reports, derived from one path line. */
typedef struct {
  gboolean available;
  gboolean metered;
  GNetworkConnectivity connectivity;
} PathdAnswer;

typedef struct {
  PathdLineKind kind;
  PathdAnswer answer;     /* PATHD_LINE_PATH only */
  gboolean route_usable;  /* PATHD_LINE_ROUTE only */
  gboolean shutting_down; /* PATHD_LINE_ERROR only: code shuttingDown */
} PathdLine;

/* Parses `length` bytes (no newline; need not be NUL-terminated or valid UTF-8). */
void pathd_line_parse (const char *data, gsize length, PathdLine *line);

gboolean pathd_answer_equal (const PathdAnswer *a, const PathdAnswer *b);

/* Whether a path or route status lets traffic flow: satisfied, or requiresConnection
 * (an on-demand link that traffic brings up). */
gboolean pathd_status_is_usable (const char *status);
