/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
#include "pathd-monitor.h"

#include "pathd-line.h"
#include "pathd-reach.h"
#include "pathd-socket.h"

/* Sent once per connection; every path line that follows is this subscription's. */
#define SUBSCRIBE_REQUEST "{\"op\":\"subscribe\",\"id\":\"gio\"}\n"

/* Bytes read per dispatch at most, so a chatty peer cannot hold the main loop. */
#define READ_BUDGET (64 * 1024)

typedef enum {
  CONNECTION_NONE,     /* no socket; a retry timer is pending (none during init) */
  CONNECTION_GREETING, /* connected and subscribed, waiting for hello */
  CONNECTION_OPEN,     /* hello received; path lines flow */
} ConnectionState;

/* Threading: every field is read and written on the thread that owns `context`
 * (the thread-default main context at init); the sources run there. */
struct _PathdNetworkMonitor {
  GObject parent_instance;

  GMainContext *context;
  PathdAnswer answer;    /* the latest from pathd: what can_reach falls back on */
  PathdAnswer announced; /* what the properties report: `answer` as of the last emission */
  gboolean have_answer;  /* TRUE from the first path on: init fails without one */
  gboolean initializing; /* in GInitable init: no one listens yet, nothing is queued */
  GSource *changed_source; /* the pending network-changed emission, if any */

  ConnectionState state;
  char *socket_path; /* of the current or last connection */
  GSocket *socket;
  GSource *read_source;
  GByteArray *buffer; /* bytes of an incomplete line; never past PATHD_LINE_MAX */

  GSource *retry_source;
  guint retry_ms;      /* the next back-off before jitter */
  gint64 connected_at; /* monotonic time the current connection was made; 0: none */
};

enum { PROP_0, PROP_NETWORK_AVAILABLE, PROP_NETWORK_METERED, PROP_CONNECTIVITY, N_PROPERTIES };

/* Looked up once, in class_init (as gio/gnetworkmonitorbase.c does). */
static GParamSpec *properties[N_PROPERTIES];
static guint network_changed_signal;

static void initable_iface_init (GInitableIface *iface);
static void monitor_iface_init (GNetworkMonitorInterface *iface);
static void schedule_retry (PathdNetworkMonitor *self);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (PathdNetworkMonitor, pathd_network_monitor, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (G_TYPE_INITABLE, initable_iface_init)
                                G_IMPLEMENT_INTERFACE_DYNAMIC (G_TYPE_NETWORK_MONITOR, monitor_iface_init))

/* Destroys and releases `*source`, if any. */
static void
clear_source (GSource **source)
{
  if (*source != NULL)
    g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

static void
disconnect (PathdNetworkMonitor *self)
{
  clear_source (&self->read_source);
  if (self->socket != NULL)
    {
      g_socket_close (self->socket, NULL);
      g_clear_object (&self->socket);
    }
  g_byte_array_set_size (self->buffer, 0);
  self->state = CONNECTION_NONE;
}

/* The pending emission, at G_PRIORITY_HIGH_IDLE: after every line that arrived in
 * this main-loop turn (the read source runs at G_PRIORITY_DEFAULT), so a burst is one
 * network-changed, reporting where the burst ended (gio/gnetworkmonitorbase.c,
 * emit_network_changed). Each property that differs from what was last announced is
 * notified first. A reference is held across the emissions: a handler may drop the
 * program's last one. */
static gboolean
emit_network_changed (gpointer user_data)
{
  PathdNetworkMonitor *self = g_object_ref (user_data);
  /* Released first: a line read while a handler runs (a nested main loop) queues the
   * next emission instead of being lost. */
  g_clear_pointer (&self->changed_source, g_source_unref);
  PathdAnswer old = self->announced;
  self->announced = self->answer;
  if (old.available != self->announced.available)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NETWORK_AVAILABLE]);
  if (old.metered != self->announced.metered)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NETWORK_METERED]);
  if (old.connectivity != self->announced.connectivity)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONNECTIVITY]);
  g_signal_emit (self, network_changed_signal, 0, self->announced.available);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

static void
queue_network_changed (PathdNetworkMonitor *self)
{
  if (self->changed_source != NULL)
    return;
  self->changed_source = g_idle_source_new ();
  g_source_set_priority (self->changed_source, G_PRIORITY_HIGH_IDLE);
  /* Destroyed in finalize if still pending. */
  g_source_set_callback (self->changed_source, emit_network_changed, self, NULL);
  g_source_set_static_name (self->changed_source, "pathd network monitor changed");
  g_source_attach (self->changed_source, self->context);
}

/* Takes in a new answer; queues a network-changed when it differs from the previous
 * one in a property or in where traffic goes (another first interface or gateway:
 * GLib's own backends emit network-changed for every network added or removed, and
 * programs re-open sockets on it). During init, before anyone can listen, the
 * properties take it at once (GLib's base backend queues nothing while initializing). */
static void
set_answer (PathdNetworkMonitor *self, const PathdAnswer *answer)
{
  gboolean had_answer = self->have_answer;
  gboolean same = pathd_answer_equal (&self->answer, answer) && pathd_answer_same_traffic (&self->answer, answer);
  self->answer = *answer;
  self->have_answer = TRUE;
  if (self->initializing || !had_answer)
    self->announced = *answer;
  else if (!same)
    queue_network_changed (self);
}

/* Acts on one line (a PathdLineFunc); FALSE when the connection must be dropped. */
static gboolean
handle_line (const char *data, gsize length, gpointer user_data)
{
  PathdNetworkMonitor *self = user_data;
  PathdLine line;
  pathd_line_parse (data, length, &line);
  switch (line.kind)
    {
    case PATHD_LINE_HELLO:
      self->state = CONNECTION_OPEN;
      return TRUE;
    case PATHD_LINE_PATH:
      /* A path before hello is not from a pathd this module understands. */
      if (self->state != CONNECTION_OPEN)
        return FALSE;
      set_answer (self, &line.answer);
      return TRUE;
    case PATHD_LINE_INVALID:
      /* Before hello it is not pathd (or not protocol 1); after, one bad line is
       * skipped and the last answer kept. */
      g_debug ("ignoring an invalid line of %" G_GSIZE_FORMAT " bytes", length);
      return self->state == CONNECTION_OPEN;
    case PATHD_LINE_ERROR:
      /* shuttingDown is followed by end of file, which is where the retry starts. */
      return TRUE;
    case PATHD_LINE_ROUTE:
    case PATHD_LINE_IGNORED:
    default:
      return TRUE;
    }
}

/* Reads what is there without waiting. 1: more may come; 0: would block; -1: the
 * connection ended or must be dropped. */
static int
receive_available (PathdNetworkMonitor *self, GCancellable *cancellable)
{
  guint8 chunk[8192];
  gsize total = 0;
  while (total < READ_BUDGET)
    {
      g_autoptr (GError) error = NULL;
      gssize count = g_socket_receive (self->socket, (char *) chunk, sizeof chunk, cancellable, &error);
      if (count < 0)
        {
          gboolean would_block = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
          if (!would_block)
            g_debug ("%s", error->message);
          return would_block ? 0 : -1;
        }
      if (count == 0)
        return -1;
      PathdLinesResult taken
          = pathd_lines_take (self->buffer, chunk, (gsize) count, PATHD_LINE_MAX, handle_line, self);
      if (taken == PATHD_LINES_TOO_LONG)
        g_debug ("a line passed %d bytes; dropping the connection", PATHD_LINE_MAX);
      if (taken != PATHD_LINES_MORE)
        return -1;
      total += (gsize) count;
    }
  return 1;
}

static gboolean
on_readable (GSocket *socket G_GNUC_UNUSED, GIOCondition condition G_GNUC_UNUSED, gpointer user_data)
{
  /* Nothing is emitted from here (emit_network_changed does it later), so no handler
   * can release the monitor while its lines are handled. */
  PathdNetworkMonitor *self = user_data;
  gboolean keep = receive_available (self, NULL) >= 0;
  if (!keep)
    {
      g_debug ("connection to %s ended; keeping the last answer", self->socket_path);
      disconnect (self);
      schedule_retry (self);
    }
  return keep ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* Connects and subscribes to the first candidate that accepts; no waiting. */
static gboolean
connect_first (PathdNetworkMonitor *self, char **candidates, guint *next)
{
  for (; candidates[*next] != NULL; (*next)++)
    {
      const char *path = candidates[*next];
      g_autoptr (GError) error = NULL;
      g_autoptr (GSocket) socket = pathd_socket_connect (path, &error);
      if (socket != NULL && pathd_socket_send_all (socket, SUBSCRIBE_REQUEST, &error))
        {
          self->socket = g_steal_pointer (&socket);
          self->state = CONNECTION_GREETING;
          self->connected_at = g_get_monotonic_time ();
          g_free (self->socket_path);
          self->socket_path = g_strdup (path);
          (*next)++;
          return TRUE;
        }
      g_debug ("%s: %s", path, error->message);
    }
  return FALSE;
}

static void
watch_socket (PathdNetworkMonitor *self)
{
  self->read_source = g_socket_create_source (self->socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  /* The source is destroyed (disconnect) before the monitor is finalized. */
  g_source_set_callback (self->read_source, G_SOURCE_FUNC (on_readable), self, NULL);
  g_source_set_static_name (self->read_source, "pathd network monitor");
  g_source_attach (self->read_source, self->context);
}

static gboolean
on_retry (gpointer user_data)
{
  PathdNetworkMonitor *self = user_data;
  g_clear_pointer (&self->retry_source, g_source_unref);
  g_auto (GStrv) candidates = pathd_socket_candidates ();
  guint next = 0;
  if (connect_first (self, candidates, &next))
    watch_socket (self);
  else
    schedule_retry (self);
  return G_SOURCE_REMOVE;
}

/* The only timer: armed while disconnected. Waits the current back-off shortened at
 * random by up to PATHD_RETRY_JITTER_PERCENT of it (jitter keeps a host's programs from
 * reconnecting in step), then
 * doubles it up to the cap. The waits start over only after a connection that stayed
 * up for the cap (docs/PROTOCOL.md, "Reconnecting"; PathSocketClient's
 * ReconnectSchedule): a pathd that greets, sends a path and dies is retried ever more
 * slowly, never every 100 ms. */
static void
schedule_retry (PathdNetworkMonitor *self)
{
  if (self->connected_at != 0
      && g_get_monotonic_time () - self->connected_at >= (gint64) PATHD_RETRY_CAP_MS * G_TIME_SPAN_MILLISECOND)
    self->retry_ms = PATHD_RETRY_FIRST_MS;
  self->connected_at = 0;
  guint jitter = self->retry_ms * PATHD_RETRY_JITTER_PERCENT / 100;
  guint delay = self->retry_ms - (guint) g_random_int_range (0, (gint32) jitter + 1);
  g_debug ("reconnecting to %s in %u ms (back-off %u ms)", self->socket_path, delay, self->retry_ms);
  self->retry_ms = MIN (self->retry_ms * 2, PATHD_RETRY_CAP_MS);
  self->retry_source = g_timeout_source_new (delay);
  g_source_set_callback (self->retry_source, on_retry, self, NULL);
  g_source_set_static_name (self->retry_source, "pathd network monitor reconnect");
  g_source_attach (self->retry_source, self->context);
}

/* Waits for hello and the first path on the connection just made, until `deadline`
 * (monotonic microseconds). A connection that ends right after the first path has
 * given the answer all the same: it is dropped here, and init reconnects later. */
static gboolean
await_first_path (PathdNetworkMonitor *self, gint64 deadline, GCancellable *cancellable, GError **error)
{
  while (!self->have_answer)
    {
      gint64 remaining = deadline - g_get_monotonic_time ();
      if (remaining <= 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                       "pathd at %s sent no path within %d ms", self->socket_path, PATHD_INIT_TIMEOUT_MS);
          return FALSE;
        }
      GError *wait_error = NULL;
      if (!g_socket_condition_timed_wait (self->socket, G_IO_IN, remaining, cancellable, &wait_error))
        {
          /* A timeout is reported above, with the bound, on the next turn. */
          if (g_error_matches (wait_error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
            {
              g_error_free (wait_error);
              continue;
            }
          g_propagate_error (error, wait_error);
          return FALSE;
        }
      if (receive_available (self, cancellable) < 0)
        {
          if (self->have_answer)
            {
              disconnect (self);
              return TRUE;
            }
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                       "pathd at %s closed the connection or is not pathd (protocol 1)", self->socket_path);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  PathdNetworkMonitor *self = PATHD_NETWORK_MONITOR (initable);
  gint64 deadline = g_get_monotonic_time () + PATHD_INIT_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;
  g_auto (GStrv) candidates = pathd_socket_candidates ();
  guint next = 0;
  g_autoptr (GError) last_error = NULL;

  self->initializing = TRUE;
  while (!self->have_answer && connect_first (self, candidates, &next))
    {
      g_clear_error (&last_error);
      if (!await_first_path (self, deadline, cancellable, &last_error))
        {
          disconnect (self);
          if (g_error_matches (last_error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)
              || g_error_matches (last_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            break;
        }
    }
  self->initializing = FALSE;
  if (!self->have_answer)
    {
      if (last_error != NULL)
        g_propagate_error (error, g_steal_pointer (&last_error));
      else
        {
          g_autofree char *tried = g_strjoinv (", ", candidates);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no pathd socket answers (tried %s)", tried);
        }
      return FALSE;
    }
  if (self->socket != NULL)
    watch_socket (self);
  else
    schedule_retry (self);
  return TRUE;
}

static void
pathd_network_monitor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  PathdNetworkMonitor *self = PATHD_NETWORK_MONITOR (object);
  switch (prop_id)
    {
    case PROP_NETWORK_AVAILABLE:
      g_value_set_boolean (value, self->announced.available);
      break;
    case PROP_NETWORK_METERED:
      g_value_set_boolean (value, self->announced.metered);
      break;
    case PROP_CONNECTIVITY:
      g_value_set_enum (value, self->announced.connectivity);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
pathd_network_monitor_init (PathdNetworkMonitor *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->buffer = g_byte_array_new ();
  self->retry_ms = PATHD_RETRY_FIRST_MS;
  self->answer.connectivity = G_NETWORK_CONNECTIVITY_LOCAL;
  self->announced = self->answer;
}

static void
pathd_network_monitor_finalize (GObject *object)
{
  PathdNetworkMonitor *self = PATHD_NETWORK_MONITOR (object);
  disconnect (self);
  clear_source (&self->retry_source);
  clear_source (&self->changed_source);
  g_byte_array_unref (self->buffer);
  g_free (self->socket_path);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (pathd_network_monitor_parent_class)->finalize (object);
}

static void
pathd_network_monitor_class_init (PathdNetworkMonitorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->get_property = pathd_network_monitor_get_property;
  object_class->finalize = pathd_network_monitor_finalize;
  g_object_class_override_property (object_class, PROP_NETWORK_AVAILABLE, "network-available");
  g_object_class_override_property (object_class, PROP_NETWORK_METERED, "network-metered");
  g_object_class_override_property (object_class, PROP_CONNECTIVITY, "connectivity");
  properties[PROP_NETWORK_AVAILABLE] = g_object_class_find_property (object_class, "network-available");
  properties[PROP_NETWORK_METERED] = g_object_class_find_property (object_class, "network-metered");
  properties[PROP_CONNECTIVITY] = g_object_class_find_property (object_class, "connectivity");
  network_changed_signal = g_signal_lookup ("network-changed", G_TYPE_NETWORK_MONITOR);
}

static void
pathd_network_monitor_class_finalize (PathdNetworkMonitorClass *klass G_GNUC_UNUSED)
{
}

static void
initable_iface_init (GInitableIface *iface)
{
  iface->init = initable_init;
}

/* can_reach and can_reach_async: pathd-reach.c, on the socket of the current (or
 * last) connection and the latest answer. */
static gboolean
can_reach (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable, GError **error)
{
  PathdNetworkMonitor *self = PATHD_NETWORK_MONITOR (monitor);
  return pathd_reach (self->socket_path, &self->answer, connectable, cancellable, error);
}

static void
can_reach_async (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable,
                 GAsyncReadyCallback callback, gpointer user_data)
{
  PathdNetworkMonitor *self = PATHD_NETWORK_MONITOR (monitor);
  pathd_reach_async (self, self->socket_path, &self->answer, connectable, cancellable, callback, user_data);
}

static gboolean
can_reach_finish (GNetworkMonitor *monitor, GAsyncResult *result, GError **error)
{
  return pathd_reach_finish (monitor, result, error);
}

static void
monitor_iface_init (GNetworkMonitorInterface *iface)
{
  iface->can_reach = can_reach;
  iface->can_reach_async = can_reach_async;
  iface->can_reach_finish = can_reach_finish;
}

void
pathd_network_monitor_register (GIOModule *module)
{
  pathd_network_monitor_register_type (G_TYPE_MODULE (module));
  g_io_extension_point_implement (G_NETWORK_MONITOR_EXTENSION_POINT_NAME, PATHD_TYPE_NETWORK_MONITOR, "pathd",
                                  PATHD_EXTENSION_PRIORITY);
}
