/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
#include "pathd-route.h"

#include <gio/gunixsocketaddress.h>
#include <string.h>

#include "pathd-line.h"

/* The request for `address`. Its zone goes in `interface`, as the index in decimal
 * (docs/PROTOCOL.md, "route"); pathd takes one for a link-local IPv6 destination only,
 * and any other with a scope id is routed by the routes alone, as the kernel does. */
static char *
request_for (GInetSocketAddress *address)
{
  GInetAddress *inet = g_inet_socket_address_get_address (address);
  g_autofree char *text = g_inet_address_to_string (inet);
  /* Only an IPv6 address has one: GLib criticizes asking an IPv4 address for it. */
  guint32 zone = g_inet_address_get_family (inet) == G_SOCKET_FAMILY_IPV6
                     ? g_inet_socket_address_get_scope_id (address)
                     : 0;
  if (zone != 0
      && (g_inet_address_get_is_link_local (inet) || g_inet_address_get_is_mc_link_local (inet)
          || g_inet_address_get_is_mc_node_local (inet)))
    return g_strdup_printf ("{\"op\":\"route\",\"destination\":\"%s\",\"interface\":\"%" G_GUINT32_FORMAT "\"}\n",
                            text, zone);
  return g_strdup_printf ("{\"op\":\"route\",\"destination\":\"%s\"}\n", text);
}

/* What the reply lines said so far (a PathdLineFunc's state). */
typedef struct {
  gboolean answered; /* a route reply or an error came */
  gboolean usable;
  GError *error;
} Reply;

/* Looks at one reply line; FALSE once the route reply (or an error) is found. */
static gboolean
take_reply_line (const char *data, gsize length, gpointer user_data)
{
  Reply *reply = user_data;
  PathdLine line;
  pathd_line_parse (data, length, &line);
  if (line.kind == PATHD_LINE_ROUTE)
    {
      reply->answered = TRUE;
      reply->usable = line.route_usable;
      return FALSE;
    }
  if (line.kind == PATHD_LINE_ERROR)
    {
      reply->answered = TRUE;
      g_set_error_literal (&reply->error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "pathd refused the route question");
      return FALSE;
    }
  /* hello, and anything newer this module does not know, come before the reply. */
  return TRUE;
}

/* Reads until the route reply; FALSE with `error` when none came. */
static gboolean
read_reply (GInputStream *input, gboolean *usable, GCancellable *cancellable, GError **error)
{
  g_autoptr (GByteArray) buffer = g_byte_array_new ();
  Reply reply = { FALSE, FALSE, NULL };
  guint8 chunk[4096];
  while (!reply.answered)
    {
      gssize count = g_input_stream_read (input, chunk, sizeof chunk, cancellable, error);
      if (count < 0)
        return FALSE;
      if (count == 0)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "pathd closed the connection");
          return FALSE;
        }
      if (pathd_lines_take (buffer, chunk, (gsize) count, PATHD_ROUTE_REPLY_MAX, take_reply_line, &reply)
          == PATHD_LINES_TOO_LONG)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "pathd's reply is too long");
          return FALSE;
        }
    }
  if (reply.error != NULL)
    {
      g_propagate_error (error, reply.error);
      return FALSE;
    }
  *usable = reply.usable;
  return TRUE;
}

gboolean
pathd_route_query (const char *socket_path, GInetSocketAddress *address, gboolean *usable, GCancellable *cancellable,
                   GError **error)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  /* Applies to every read and write of the connection. */
  g_socket_client_set_timeout (client, PATHD_ROUTE_TIMEOUT_S);
  g_autoptr (GSocketAddress) target = g_unix_socket_address_new (socket_path);
  g_autoptr (GSocketConnection) connection
      = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (target), cancellable, error);
  if (connection == NULL)
    return FALSE;

  g_autofree char *request = request_for (address);
  gboolean answered
      = g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)), request,
                                   strlen (request), NULL, cancellable, error)
        && read_reply (g_io_stream_get_input_stream (G_IO_STREAM (connection)), usable, cancellable, error);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  return answered;
}
