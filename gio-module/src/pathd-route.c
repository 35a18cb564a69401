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
  char *text = g_inet_address_to_string (inet);
  guint32 zone = g_inet_socket_address_get_scope_id (address);
  char *request;
  if (zone != 0 && g_inet_address_get_family (inet) == G_SOCKET_FAMILY_IPV6
      && (g_inet_address_get_is_link_local (inet) || g_inet_address_get_is_mc_link_local (inet)
          || g_inet_address_get_is_mc_node_local (inet)))
    request = g_strdup_printf ("{\"op\":\"route\",\"destination\":\"%s\",\"interface\":\"%" G_GUINT32_FORMAT "\"}\n",
                               text, zone);
  else
    request = g_strdup_printf ("{\"op\":\"route\",\"destination\":\"%s\"}\n", text);
  g_free (text);
  return request;
}

static GSocketClient *
new_client (void)
{
  GSocketClient *client = g_socket_client_new ();
  /* Applies to every read and write of the connection, and to its sources. */
  g_socket_client_set_timeout (client, PATHD_ROUTE_TIMEOUT_S);
  return client;
}

/* Appends `count` bytes to `reply` and looks at each complete line. 1: the route
 * reply was found (`*usable` set); 0: read more; -1: `error` set. */
static int
take_reply (GByteArray *reply, const guint8 *bytes, gsize count, gboolean *usable, GError **error)
{
  g_byte_array_append (reply, bytes, (guint) count);
  gsize start = 0;
  for (gsize i = reply->len - count; i < reply->len; i++)
    {
      if (reply->data[i] != '\n')
        continue;
      PathdLine line;
      pathd_line_parse ((const char *) reply->data + start, i - start, &line);
      start = i + 1;
      if (line.kind == PATHD_LINE_ROUTE)
        {
          *usable = line.route_usable;
          return 1;
        }
      if (line.kind == PATHD_LINE_ERROR)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "pathd refused the route question");
          return -1;
        }
      /* hello, and anything newer this module does not know, come before the reply. */
    }
  g_byte_array_remove_range (reply, 0, (guint) start);
  if (reply->len > PATHD_ROUTE_REPLY_MAX)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "pathd's reply is too long");
      return -1;
    }
  return 0;
}

gboolean
pathd_route_query (const char *socket_path, GInetSocketAddress *address, gboolean *usable, GCancellable *cancellable,
                   GError **error)
{
  GSocketClient *client = new_client ();
  GSocketAddress *target = g_unix_socket_address_new (socket_path);
  GSocketConnection *connection
      = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (target), cancellable, error);
  g_object_unref (target);
  g_object_unref (client);
  if (connection == NULL)
    return FALSE;

  char *request = request_for (address);
  int found = -1;
  if (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)), request,
                                 strlen (request), NULL, cancellable, error))
    {
      GInputStream *input = g_io_stream_get_input_stream (G_IO_STREAM (connection));
      GByteArray *reply = g_byte_array_new ();
      guint8 chunk[4096];
      found = 0;
      while (found == 0)
        {
          gssize count = g_input_stream_read (input, chunk, sizeof chunk, cancellable, error);
          if (count < 0)
            found = -1;
          else if (count == 0)
            {
              g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "pathd closed the connection");
              found = -1;
            }
          else
            found = take_reply (reply, chunk, (gsize) count, usable, error);
        }
      g_byte_array_unref (reply);
    }
  g_free (request);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  g_object_unref (connection);
  return found == 1;
}

/* The asynchronous exchange: connect, write, read until the reply; each step's
 * callback runs on the caller's thread-default main context. */
typedef struct {
  char *request;
  GSocketConnection *connection;
  GByteArray *reply;
  guint8 chunk[4096];
} Exchange;

static void
exchange_free (gpointer data)
{
  Exchange *exchange = data;
  g_free (exchange->request);
  if (exchange->connection != NULL)
    {
      g_io_stream_close (G_IO_STREAM (exchange->connection), NULL, NULL);
      g_object_unref (exchange->connection);
    }
  g_byte_array_unref (exchange->reply);
  g_free (exchange);
}

static void on_read (GObject *source, GAsyncResult *result, gpointer user_data);

static void
read_more (GTask *task)
{
  Exchange *exchange = g_task_get_task_data (task);
  GInputStream *input = g_io_stream_get_input_stream (G_IO_STREAM (exchange->connection));
  g_input_stream_read_async (input, exchange->chunk, sizeof exchange->chunk, G_PRIORITY_DEFAULT,
                             g_task_get_cancellable (task), on_read, task);
}

static void
on_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Exchange *exchange = g_task_get_task_data (task);
  GError *error = NULL;
  gssize count = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  if (count < 0)
    g_task_return_error (task, error);
  else if (count == 0)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "pathd closed the connection");
  else
    {
      gboolean usable = FALSE;
      int found = take_reply (exchange->reply, exchange->chunk, (gsize) count, &usable, &error);
      if (found == 0)
        {
          read_more (task);
          return;
        }
      if (found == 1)
        g_task_return_int (task, usable);
      else
        g_task_return_error (task, error);
    }
  g_object_unref (task);
}

static void
on_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  read_more (task);
}

static void
on_connected (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Exchange *exchange = g_task_get_task_data (task);
  GError *error = NULL;
  exchange->connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (source), result, &error);
  if (exchange->connection == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  GOutputStream *output = g_io_stream_get_output_stream (G_IO_STREAM (exchange->connection));
  g_output_stream_write_all_async (output, exchange->request, strlen (exchange->request), G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), on_written, task);
}

void
pathd_route_query_async (const char *socket_path, GInetSocketAddress *address, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, pathd_route_query_async);
  Exchange *exchange = g_new0 (Exchange, 1);
  exchange->request = request_for (address);
  exchange->reply = g_byte_array_new ();
  g_task_set_task_data (task, exchange, exchange_free);

  GSocketClient *client = new_client ();
  GSocketAddress *target = g_unix_socket_address_new (socket_path);
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (target), cancellable, on_connected, task);
  g_object_unref (target);
  g_object_unref (client);
}

gboolean
pathd_route_query_finish (GAsyncResult *result, gboolean *usable, GError **error)
{
  gssize value = g_task_propagate_int (G_TASK (result), error);
  if (value < 0)
    return FALSE;
  *usable = value != 0;
  return TRUE;
}
