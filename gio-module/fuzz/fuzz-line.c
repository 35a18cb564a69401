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
