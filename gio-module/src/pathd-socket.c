/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
#include "pathd-socket.h"

#include <gio/gunixsocketaddress.h>
#include <string.h>

char **
pathd_socket_candidates (void)
{
  GPtrArray *paths = g_ptr_array_new ();
  const char *explicit = g_getenv ("PATHD_SOCKET");
  if (explicit != NULL && explicit[0] != '\0')
    g_ptr_array_add (paths, g_strdup (explicit));
  else
    {
      g_ptr_array_add (paths, g_strdup ("/run/pathd/pathd.sock"));
      const char *runtime = g_getenv ("XDG_RUNTIME_DIR");
      /* Only an absolute runtime directory: a relative one would depend on the
       * program's working directory. */
      if (runtime != NULL && g_path_is_absolute (runtime))
        g_ptr_array_add (paths, g_build_filename (runtime, "pathd", "pathd.sock", NULL));
    }
  g_ptr_array_add (paths, NULL);
  return (char **) g_ptr_array_free (paths, FALSE);
}

GSocket *
pathd_socket_connect (const char *path, GError **error)
{
  GSocket *socket = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
  if (socket == NULL)
    return NULL;
  g_socket_set_blocking (socket, FALSE);
  g_autoptr (GSocketAddress) address = g_unix_socket_address_new (path);
  if (!g_socket_connect (socket, address, NULL, error))
    {
      g_object_unref (socket);
      return NULL;
    }
  return socket;
}

gboolean
pathd_socket_send_all (GSocket *socket, const char *text, GError **error)
{
  gsize length = strlen (text);
  gssize sent = g_socket_send (socket, text, length, NULL, error);
  if (sent < 0)
    return FALSE;
  if ((gsize) sent != length)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "pathd: request only partly sent");
      return FALSE;
    }
  return TRUE;
}
