/* can_reach and can_reach_async: GLib's resolver (and proxy settings) name the
 * addresses, pathd's `route` answer judges each (docs/PROTOCOL.md, "route"). The
 * errors are the ones GLib's own backends return, with GLib's translated words. */
#include "pathd-monitor.h"
#include "pathd-route.h"


/* GLib's gettext domain: the messages below are GLib's own. */
#define GLIB_DOMAIN "glib20"

static void
set_unreachable (GError **error, const PathdAnswer *answer)
{
  if (!answer->available)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE,
                         g_dgettext (GLIB_DOMAIN, "Network unreachable"));
  else
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE, g_dgettext (GLIB_DOMAIN, "Host unreachable"));
}

/* The address to ask about (with its zone), or NULL for one that is not an IP
 * socket address. */
static GInetSocketAddress *
inet_address_of (GSocketAddress *address)
{
  return G_IS_INET_SOCKET_ADDRESS (address) ? G_INET_SOCKET_ADDRESS (address) : NULL;
}

/* What the answer is when resolution stopped with `error`: a cancellation is the
 * caller's; while the network is down, that (not the resolver's failure, which it
 * caused) is what GLib's backends report. */
static void
finish_with_resolver_error (GError *error, const PathdAnswer *answer, GError **out)
{
  if (!answer->available && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_error_free (error);
      set_unreachable (out, answer);
      return;
    }
  g_propagate_error (out, error);
}

/* Without pathd's route answer (pathd away, or older than `route`), the default
 * path decides, as GLib's base backend does with default routes in both families. */
static gboolean
fall_back_to_path (const PathdAnswer *answer, GError *query_error, GError **error)
{
  g_debug ("no route answer (%s); answering from the default path", query_error->message);
  g_error_free (query_error);
  if (answer->available)
    return TRUE;
  set_unreachable (error, answer);
  return FALSE;
}

static gboolean
can_reach (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable, GError **error)
{
  PathdNetworkMonitor *self = PATHD_NETWORK_MONITOR (monitor);
  const PathdAnswer *answer = pathd_network_monitor_get_answer (self);
  GSocketAddressEnumerator *enumerator = g_socket_connectable_proxy_enumerate (connectable);
  GError *local_error = NULL;
  GSocketAddress *address;

  while ((address = g_socket_address_enumerator_next (enumerator, cancellable, &local_error)) != NULL)
    {
      GInetSocketAddress *inet = inet_address_of (address);
      gboolean usable = FALSE;
      GError *query_error = NULL;
      if (inet != NULL
          && !pathd_route_query (pathd_network_monitor_get_socket_path (self), inet, &usable, cancellable,
                                 &query_error))
        {
          g_object_unref (address);
          g_object_unref (enumerator);
          if (g_error_matches (query_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              g_propagate_error (error, query_error);
              return FALSE;
            }
          return fall_back_to_path (answer, query_error, error);
        }
      g_object_unref (address);
      if (usable)
        {
          g_object_unref (enumerator);
          return TRUE;
        }
    }
  g_object_unref (enumerator);
  if (local_error != NULL)
    finish_with_resolver_error (local_error, answer, error);
  else
    set_unreachable (error, answer);
  return FALSE;
}

static void next_address (GTask *task);

static void
on_route_answer (GObject *source, GAsyncResult *result, gpointer user_data)
{
  (void) source;
  GTask *task = user_data;
  PathdNetworkMonitor *self = g_task_get_source_object (task);
  gboolean usable = FALSE;
  GError *error = NULL;
  if (!pathd_route_query_finish (result, &usable, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_task_return_error (task, error);
      else
        {
          GError *path_error = NULL;
          if (fall_back_to_path (pathd_network_monitor_get_answer (self), error, &path_error))
            g_task_return_boolean (task, TRUE);
          else
            g_task_return_error (task, path_error);
        }
      g_object_unref (task);
      return;
    }
  if (usable)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  next_address (task);
}

static void
on_address (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  PathdNetworkMonitor *self = g_task_get_source_object (task);
  const PathdAnswer *answer = pathd_network_monitor_get_answer (self);
  GError *error = NULL;
  GSocketAddress *address
      = g_socket_address_enumerator_next_finish (G_SOCKET_ADDRESS_ENUMERATOR (source), result, &error);
  if (address == NULL)
    {
      GError *out = NULL;
      if (error != NULL)
        finish_with_resolver_error (error, answer, &out);
      else
        set_unreachable (&out, answer);
      g_task_return_error (task, out);
      g_object_unref (task);
      return;
    }
  GInetSocketAddress *inet = inet_address_of (address);
  if (inet == NULL)
    next_address (task);
  else
    pathd_route_query_async (pathd_network_monitor_get_socket_path (self), inet, g_task_get_cancellable (task),
                             on_route_answer, task);
  g_object_unref (address);
}

/* The enumerator is the task's data; the task holds the monitor as its source. */
static void
next_address (GTask *task)
{
  g_socket_address_enumerator_next_async (g_task_get_task_data (task), g_task_get_cancellable (task), on_address,
                                          task);
}

static void
can_reach_async (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable,
                 GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (monitor, cancellable, callback, user_data);
  g_task_set_source_tag (task, can_reach_async);
  g_task_set_task_data (task, g_socket_connectable_proxy_enumerate (connectable), g_object_unref);
  next_address (task);
}

static gboolean
can_reach_finish (GNetworkMonitor *monitor, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, monitor), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
pathd_network_monitor_reach_iface_init (GNetworkMonitorInterface *iface)
{
  iface->can_reach = can_reach;
  iface->can_reach_async = can_reach_async;
  iface->can_reach_finish = can_reach_finish;
}
