/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* libFuzzer target: any bytes pathd (or whatever listens on its socket) could send
 * as one line, then the same bytes as a stream through the line framing. The handler
 * and the framing must return, never crash, hang or leak. */
#include <stdint.h>
#include <string.h>

#include "pathd-line.h"

/* The framing's bound here: small, so that inputs reach it. */
#define FRAME_MAX 256

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Counts the bytes handed over as lines (each with its newline). */
static gboolean
count_line (const char *data, gsize length, gpointer user_data)
{
  if (memchr (data, '\n', length) != NULL)
    __builtin_trap ();
  *(gsize *) user_data += length + 1;
  return TRUE;
}

/* The bytes in chunks of 1 to 16 (the first byte says how long): every byte is in a
 * line or waiting in the buffer, until a waiting line passes the bound. */
static void
frame (const uint8_t *data, size_t size)
{
  gsize step = data[0] % 16 + 1;
  GByteArray *buffer = g_byte_array_new ();
  gsize framed = 0;
  PathdLinesResult result = PATHD_LINES_MORE;
  for (gsize offset = 0; offset < size && result == PATHD_LINES_MORE; offset += step)
    result = pathd_lines_take (buffer, data + offset, MIN (step, size - offset), FRAME_MAX, count_line, &framed);
  if (result == PATHD_LINES_MORE && framed + buffer->len != size)
    __builtin_trap ();
  if (result == PATHD_LINES_TOO_LONG && buffer->len <= FRAME_MAX)
    __builtin_trap ();
  g_byte_array_unref (buffer);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  PathdLine line;
  pathd_line_parse ((const char *) data, size, &line);
  if (line.kind == PATHD_LINE_PATH)
    {
      /* The mapping's invariants hold for every accepted line. */
      if (!line.answer.available && (line.answer.metered || line.answer.connectivity != G_NETWORK_CONNECTIVITY_LOCAL))
        __builtin_trap ();
    }
  if (size > 0)
    frame (data, size);
  return 0;
}
