/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* libFuzzer target: any bytes pathd (or whatever listens on its socket) could send
 * as one line. The handler must return, never crash, hang or leak. */
#include <stdint.h>

#include "pathd-line.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

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
  return 0;
}
