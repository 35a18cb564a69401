/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* The module through GIO's own loader, as glib-networking tests its modules
 * (proxy/tests/gnome.c): GIO_USE_NETWORK_MONITOR=pathd, GIO_MODULE_DIR at the built
 * module alone, and a fake pathd on a temporary socket (PATHD_SOCKET) that speaks
 * docs/PROTOCOL.md's lines from a thread of its own. The emissions are asserted as
 * GLib's gio/tests/network-monitor.c does: through the real main loop, each wait
 * bounded by a timeout that fails the test; nothing sleeps to order events. No root,
 * no namespace. */
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <string.h>

/* The numbers the module declares (back-off, priority): the test asks GIO for the
 * rest, and links nothing of the module. */
#include "pathd-monitor.h"

#ifndef PATHD_MODULE_DIR
#error "PATHD_MODULE_DIR (the directory of the built module) is defined by the Makefile"
#endif

/* How long any one wait may take before the test fails. */
#define WAIT_MS 10000

#define HELLO "{\"type\":\"hello\",\"protocol\":1,\"version\":\"0.1.0\",\"generation\":1}\n"

/* A path line as pathd sends it (docs/PROTOCOL.md, "path"). */
static char *
path_line (const char *status, const char *interface, int index, gboolean expensive)
{
  return g_strdup_printf ("{\"type\":\"path\",\"generation\":1,\"sequence\":1,\"status\":\"%s\","
                          "\"unsatisfiedReason\":null,\"interfaces\":[{\"name\":\"%s\",\"index\":%d,"
                          "\"type\":\"wiredEthernet\",\"tunnel\":false}],\"isExpensive\":%s,"
                          "\"isConstrained\":false,\"gateways\":[\"192.0.2.1\"],\"connectivity\":{\"state\":\"unknown\"}}\n",
                          status, interface, index, expensive ? "true" : "false");
}

/* The fake pathd ------------------------------------------------------------------ */

/* The destination whose route the fake calls usable; every other one is not. */
#define ROUTABLE "198.51.100.7"

typedef struct {
  char *socket_path;
  char *greeting;            /* what a subscription is sent: hello and a path */
  gboolean greet_first_only; /* later connections are closed unanswered: a crash loop */
  GSocket *listener;
  GCancellable *cancellable;
  GThread *thread;
  GMutex lock;            /* guards the three below */
  GPtrArray *subscribers; /* GSocket: connections that subscribed, kept open */
  GArray *accepted_at;    /* gint64: monotonic time of each accepted connection */
  guint subscriptions;    /* connections whose request was {"op":"subscribe",...} */
} FakePathd;

static gboolean
send_all (GSocket *socket, const char *text)
{
  gsize length = strlen (text);
  while (length > 0)
    {
      gssize sent = g_socket_send (socket, text, length, NULL, NULL);
      if (sent <= 0)
        return FALSE;
      text += sent;
      length -= (gsize) sent;
    }
  return TRUE;
}

/* The first line the client sends (its request), without the newline. */
static char *
read_request (GSocket *client)
{
  GString *line = g_string_new (NULL);
  char byte;
  while (g_socket_receive (client, &byte, 1, NULL, NULL) == 1 && byte != '\n')
    g_string_append_c (line, byte);
  return g_string_free (line, FALSE);
}

/* Answers one connection as pathd would: a subscription is greeted and kept, a route
 * question answered and closed. */
static void
fake_answer (FakePathd *fake, GSocket *client)
{
  g_socket_set_timeout (client, WAIT_MS / 1000);
  g_autofree char *request = read_request (client);
  if (strstr (request, "\"op\":\"subscribe\"") != NULL)
    {
      /* Greeted and listed at once, under the lock: a line fake_send sends once the
       * monitor has its answer comes after the greeting. */
      g_mutex_lock (&fake->lock);
      send_all (client, fake->greeting);
      fake->subscriptions++;
      g_ptr_array_add (fake->subscribers, g_object_ref (client));
      g_mutex_unlock (&fake->lock);
      return;
    }
  if (strstr (request, "\"op\":\"route\"") != NULL)
    {
      gboolean routable = strstr (request, "\"destination\":\"" ROUTABLE "\"") != NULL;
      send_all (client, HELLO);
      send_all (client, routable ? "{\"type\":\"route\",\"status\":\"satisfied\"}\n"
                                 : "{\"type\":\"route\",\"status\":\"unsatisfied\","
                                   "\"unsatisfiedReason\":\"routeRejects\"}\n");
    }
  g_socket_close (client, NULL);
}

static gpointer
fake_run (gpointer data)
{
  FakePathd *fake = data;
  for (;;)
    {
      g_autoptr (GSocket) client = g_socket_accept (fake->listener, fake->cancellable, NULL);
      if (client == NULL)
        return NULL; /* cancelled by fake_stop */
      gint64 now = g_get_monotonic_time ();
      g_mutex_lock (&fake->lock);
      guint earlier = fake->accepted_at->len;
      g_array_append_val (fake->accepted_at, now);
      g_mutex_unlock (&fake->lock);
      if (earlier > 0 && fake->greet_first_only)
        g_socket_close (client, NULL);
      else
        fake_answer (fake, client);
      g_main_context_wakeup (NULL);
    }
}

static FakePathd *
fake_start (const char *socket_path, const char *path, gboolean greet_first_only)
{
  FakePathd *fake = g_new0 (FakePathd, 1);
  fake->socket_path = g_strdup (socket_path);
  fake->greeting = g_strconcat (HELLO, path, NULL);
  fake->greet_first_only = greet_first_only;
  g_mutex_init (&fake->lock);
  fake->subscribers = g_ptr_array_new_with_free_func (g_object_unref);
  fake->accepted_at = g_array_new (FALSE, FALSE, sizeof (gint64));
  fake->cancellable = g_cancellable_new ();

  GError *error = NULL;
  fake->listener = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error);
  g_assert_no_error (error);
  g_autoptr (GSocketAddress) address = g_unix_socket_address_new (socket_path);
  g_socket_bind (fake->listener, address, FALSE, &error);
  g_assert_no_error (error);
  g_socket_listen (fake->listener, &error);
  g_assert_no_error (error);
  fake->thread = g_thread_new ("fake pathd", fake_run, fake);
  return fake;
}

/* pathd going away: no more listening, every connection closed. */
static void
fake_stop (FakePathd *fake)
{
  g_cancellable_cancel (fake->cancellable);
  g_thread_join (fake->thread);
  g_socket_close (fake->listener, NULL);
  g_unlink (fake->socket_path);
  for (guint i = 0; i < fake->subscribers->len; i++)
    g_socket_close (g_ptr_array_index (fake->subscribers, i), NULL);
  g_ptr_array_unref (fake->subscribers);
  g_array_unref (fake->accepted_at);
  g_object_unref (fake->listener);
  g_object_unref (fake->cancellable);
  g_mutex_clear (&fake->lock);
  g_free (fake->greeting);
  g_free (fake->socket_path);
  g_free (fake);
}

/* Sends `text` (whole lines) to every subscriber in one write each. */
static void
fake_send (FakePathd *fake, const char *text)
{
  g_mutex_lock (&fake->lock);
  for (guint i = 0; i < fake->subscribers->len; i++)
    g_assert_true (send_all (g_ptr_array_index (fake->subscribers, i), text));
  g_mutex_unlock (&fake->lock);
}

static void
fake_send_path (FakePathd *fake, const char *status, const char *interface, int index, gboolean expensive)
{
  g_autofree char *line = path_line (status, interface, index, expensive);
  fake_send (fake, line);
}

/* Closes the subscriptions, as a pathd that crashes, and keeps listening. */
static void
fake_close_subscribers (FakePathd *fake)
{
  g_mutex_lock (&fake->lock);
  for (guint i = 0; i < fake->subscribers->len; i++)
    g_socket_close (g_ptr_array_index (fake->subscribers, i), NULL);
  g_ptr_array_set_size (fake->subscribers, 0);
  g_mutex_unlock (&fake->lock);
}

static guint
fake_accepted (FakePathd *fake)
{
  g_mutex_lock (&fake->lock);
  guint count = fake->accepted_at->len;
  g_mutex_unlock (&fake->lock);
  return count;
}

static guint
fake_subscriptions (FakePathd *fake)
{
  g_mutex_lock (&fake->lock);
  guint count = fake->subscriptions;
  g_mutex_unlock (&fake->lock);
  return count;
}

/* The module's debug log ---------------------------------------------------------- */

/* The module's g_debug lines (domain "pathd"): the back-off it draws is logged there. */
static GMutex log_lock;
static GPtrArray *module_log;

static GLogWriterOutput
capture_log (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  const char *domain = NULL;
  const char *message = NULL;
  for (gsize i = 0; i < n_fields; i++)
    {
      if (fields[i].length >= 0)
        continue;
      if (strcmp (fields[i].key, "GLIB_DOMAIN") == 0)
        domain = fields[i].value;
      else if (strcmp (fields[i].key, "MESSAGE") == 0)
        message = fields[i].value;
    }
  if ((level & G_LOG_LEVEL_DEBUG) != 0 && g_strcmp0 (domain, "pathd") == 0 && message != NULL)
    {
      g_mutex_lock (&log_lock);
      g_ptr_array_add (module_log, g_strdup (message));
      g_mutex_unlock (&log_lock);
      return G_LOG_WRITER_HANDLED;
    }
  return g_log_writer_default (level, fields, n_fields, user_data);
}

/* The back-offs (and the waits drawn from them) the module logged for `socket_path`,
 * in order: "reconnecting to PATH in N ms (back-off M ms)". */
static guint
logged_retries (const char *socket_path, GArray *waits, GArray *back_offs)
{
  g_autofree char *prefix = g_strdup_printf ("reconnecting to %s in ", socket_path);
  guint count = 0;
  g_mutex_lock (&log_lock);
  for (guint i = 0; i < module_log->len; i++)
    {
      const char *message = g_ptr_array_index (module_log, i);
      guint wait = 0;
      guint back_off = 0;
      if (!g_str_has_prefix (message, prefix)
          || sscanf (message + strlen (prefix), "%u ms (back-off %u ms)", &wait, &back_off) != 2)
        continue;
      count++;
      if (waits != NULL)
        g_array_append_val (waits, wait);
      if (back_offs != NULL)
        g_array_append_val (back_offs, back_off);
    }
  g_mutex_unlock (&log_lock);
  return count;
}

/* Waiting on the main loop -------------------------------------------------------- */

typedef gboolean (*Check) (gpointer data);

static gboolean
on_wait_timeout (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the thread-default main loop, where the module emits, until `done`; fails the
 * test after WAIT_MS. The fake wakes the loop when it accepts a connection. */
static void
wait_for (const char *what, Check done, gpointer data)
{
  gboolean timed_out = FALSE;
  GSource *timeout = g_timeout_source_new (WAIT_MS);
  g_source_set_callback (timeout, on_wait_timeout, &timed_out, NULL);
  g_source_attach (timeout, NULL);
  while (!done (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (timeout);
  g_source_unref (timeout);
  if (timed_out)
    g_error ("no %s within %d ms", what, WAIT_MS);
}

/* One monitor per test, on a fake of its own ------------------------------------- */

typedef struct {
  const char *socket_path;
  FakePathd *fake;
  GNetworkMonitor *monitor; /* NULL once finalized (a weak pointer) */
  GString *events;          /* in order: A, M, C for notify::network-available, -metered,
                             * connectivity; ! for network-changed */
  guint changed;            /* network-changed emissions */
  guint want;               /* what wait_changed waits for */
  gboolean changed_available; /* the argument of the last one */
} Fixture;

/* Every fake listens on this one path, PATHD_SOCKET, set before any thread starts. The
 * default monitor's fake stays up with its connection but gives the path up once the
 * default is made (a listening socket keeps its connections when its file is
 * unlinked): the default never reconnects, and each test's fake binds the path anew. */
static char *socket_path;
static FakePathd *default_fake;

static void
on_notify (GObject *object G_GNUC_UNUSED, GParamSpec *pspec, gpointer user_data)
{
  Fixture *f = user_data;
  if (strcmp (pspec->name, "network-available") == 0)
    g_string_append_c (f->events, 'A');
  else if (strcmp (pspec->name, "network-metered") == 0)
    g_string_append_c (f->events, 'M');
  else if (strcmp (pspec->name, "connectivity") == 0)
    g_string_append_c (f->events, 'C');
}

static void
on_changed (GNetworkMonitor *monitor G_GNUC_UNUSED, gboolean available, gpointer user_data)
{
  Fixture *f = user_data;
  f->changed++;
  f->changed_available = available;
  g_string_append_c (f->events, '!');
}

static GType
pathd_monitor_type (void)
{
  GIOExtensionPoint *point = g_io_extension_point_lookup (G_NETWORK_MONITOR_EXTENSION_POINT_NAME);
  GIOExtension *pathd = g_io_extension_point_get_extension_by_name (point, "pathd");
  g_assert_nonnull (pathd);
  return g_io_extension_get_type (pathd);
}

static void
setup (Fixture *f, gconstpointer data)
{
  GType type = pathd_monitor_type ();
  GError *error = NULL;
  f->socket_path = socket_path;
  g_mutex_lock (&log_lock);
  g_ptr_array_set_size (module_log, 0);
  g_mutex_unlock (&log_lock);
  g_autofree char *satisfied = path_line ("satisfied", "eth0", 2, FALSE);
  f->fake = fake_start (f->socket_path, satisfied, GPOINTER_TO_INT (data));
  f->events = g_string_new (NULL);
  f->monitor = g_initable_new (type, NULL, &error, NULL);
  g_assert_no_error (error);
  g_object_add_weak_pointer (G_OBJECT (f->monitor), (gpointer *) &f->monitor);
  g_assert_true (g_network_monitor_get_network_available (f->monitor));
  g_signal_connect (f->monitor, "notify", G_CALLBACK (on_notify), f);
  g_signal_connect (f->monitor, "network-changed", G_CALLBACK (on_changed), f);
}

static void
teardown (Fixture *f, gconstpointer data G_GNUC_UNUSED)
{
  if (f->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (f->monitor, f);
      g_object_unref (f->monitor);
      /* Nothing else kept a reference (no source, no task): finalized. */
      g_assert_null (f->monitor);
    }
  if (f->fake != NULL)
    fake_stop (f->fake);
  g_string_free (f->events, TRUE);
}

static gboolean
changed_enough (gpointer data)
{
  Fixture *f = data;
  return f->changed >= f->want;
}

static void
wait_changed (Fixture *f, guint count)
{
  f->want = count;
  wait_for ("network-changed", changed_enough, f);
}

/* The tests ----------------------------------------------------------------------- */

/* GIO's loader picks pathd's backend (forced by GIO_USE_NETWORK_MONITOR, from the
 * module in GIO_MODULE_DIR), at its priority, with the fake's answer. */
static void
test_default (void)
{
  GNetworkMonitor *monitor = g_network_monitor_get_default ();
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (monitor), ==, "PathdNetworkMonitor");
  GIOExtensionPoint *point = g_io_extension_point_lookup (G_NETWORK_MONITOR_EXTENSION_POINT_NAME);
  GIOExtension *pathd = g_io_extension_point_get_extension_by_name (point, "pathd");
  g_assert_nonnull (pathd);
  g_assert_cmpint (g_io_extension_get_priority (pathd), ==, PATHD_EXTENSION_PRIORITY);
  g_assert_true (g_network_monitor_get_network_available (monitor));
  g_assert_false (g_network_monitor_get_network_metered (monitor));
  g_assert_cmpint (g_network_monitor_get_connectivity (monitor), ==, G_NETWORK_CONNECTIVITY_FULL);
  g_assert_cmpuint (fake_subscriptions (default_fake), ==, 1);
}

/* network-available (and the rest) follow the path lines, each changed property
 * notified before network-changed. */
static void
test_follows_path (Fixture *f, gconstpointer data G_GNUC_UNUSED)
{
  fake_send_path (f->fake, "unsatisfied", "eth0", 2, FALSE);
  wait_changed (f, 1);
  g_assert_false (f->changed_available);
  g_assert_false (g_network_monitor_get_network_available (f->monitor));
  g_assert_cmpint (g_network_monitor_get_connectivity (f->monitor), ==, G_NETWORK_CONNECTIVITY_LOCAL);
  g_assert_cmpstr (f->events->str, ==, "AC!");

  fake_send_path (f->fake, "satisfied", "eth0", 2, TRUE);
  wait_changed (f, 2);
  g_assert_true (f->changed_available);
  g_assert_true (g_network_monitor_get_network_available (f->monitor));
  g_assert_true (g_network_monitor_get_network_metered (f->monitor));
  g_assert_cmpint (g_network_monitor_get_connectivity (f->monitor), ==, G_NETWORK_CONNECTIVITY_FULL);
  g_assert_cmpstr (f->events->str, ==, "AC!AMC!");

  /* Another first interface: network-changed alone, nothing notified. */
  fake_send_path (f->fake, "satisfied", "eth1", 3, TRUE);
  wait_changed (f, 3);
  g_assert_cmpstr (f->events->str, ==, "AC!AMC!!");
  g_assert_cmpuint (fake_subscriptions (f->fake), ==, 1);
}

/* Lines written at once are one network-changed, saying where they ended. The next
 * line's emission proves no other came between: a burst split in two would have made
 * more. */
static void
test_burst (Fixture *f, gconstpointer data G_GNUC_UNUSED)
{
  g_autofree char *down = path_line ("unsatisfied", "eth0", 2, FALSE);
  g_autofree char *other = path_line ("satisfied", "eth1", 3, FALSE);
  g_autofree char *metered = path_line ("satisfied", "eth0", 2, TRUE);
  g_autofree char *unmetered = path_line ("satisfied", "eth0", 2, FALSE);
  g_autofree char *burst = g_strconcat (down, other, metered, NULL);
  fake_send (f->fake, burst);
  wait_changed (f, 1);
  g_assert_cmpstr (f->events->str, ==, "M!");
  g_assert_true (g_network_monitor_get_network_metered (f->monitor));

  fake_send (f->fake, down);
  wait_changed (f, 2);
  g_assert_cmpuint (f->changed, ==, 2);
  g_assert_cmpstr (f->events->str, ==, "M!AMC!");

  /* Up and down again in one write: one network-changed and, the properties ending as
   * they began, no notification. */
  g_autofree char *flap = g_strconcat (unmetered, down, NULL);
  fake_send (f->fake, flap);
  wait_changed (f, 3);
  g_assert_false (f->changed_available);
  fake_send (f->fake, unmetered);
  wait_changed (f, 4);
  g_assert_cmpuint (f->changed, ==, 4);
  g_assert_cmpstr (f->events->str, ==, "M!AMC!!AC!");
}

static gboolean
retry_logged (gpointer data)
{
  Fixture *f = data;
  return logged_retries (f->socket_path, NULL, NULL) > 0;
}

static gboolean
subscribed (gpointer data)
{
  Fixture *f = data;
  return fake_subscriptions (f->fake) > 0;
}

/* pathd stops (the socket goes) and comes back with another answer: the last answer is
 * kept while it is away, without an event, and the new one is followed. */
static void
test_restart (Fixture *f, gconstpointer data G_GNUC_UNUSED)
{
  fake_stop (f->fake);
  f->fake = NULL;
  wait_for ("reconnection scheduled", retry_logged, f);
  g_assert_true (g_network_monitor_get_network_available (f->monitor));
  g_assert_cmpuint (f->changed, ==, 0);

  g_autofree char *down = path_line ("unsatisfied", "eth0", 2, FALSE);
  f->fake = fake_start (f->socket_path, down, FALSE);
  wait_for ("a new subscription", subscribed, f);
  wait_changed (f, 1);
  g_assert_false (g_network_monitor_get_network_available (f->monitor));
  g_assert_cmpstr (f->events->str, ==, "AC!");
}

static gboolean
five_connections (gpointer data)
{
  Fixture *f = data;
  return fake_accepted (f->fake) >= 5;
}

/* A pathd that closes every connection at once after the first: each back-off doubles
 * from the first (docs/PROTOCOL.md, "Reconnecting": 100 ms doubling to 5 s, each wait up
 * to 20 % shorter; README.md, "At run time"), each wait is drawn from its top fifth and
 * really waited (the fake sees the connections at least that far apart). */
static void
test_back_off (Fixture *f, gconstpointer data G_GNUC_UNUSED)
{
  fake_close_subscribers (f->fake);
  wait_for ("four reconnections", five_connections, f);
  g_autoptr (GArray) waits = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) back_offs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_assert_cmpuint (logged_retries (f->socket_path, waits, back_offs), >=, 4);
  g_mutex_lock (&f->fake->lock);
  for (guint i = 0; i < 4; i++)
    {
      guint expected = MIN (PATHD_RETRY_FIRST_MS << i, PATHD_RETRY_CAP_MS);
      guint wait = g_array_index (waits, guint, i);
      g_assert_cmpuint (g_array_index (back_offs, guint, i), ==, expected);
      g_assert_cmpuint (wait, >=, expected - expected * PATHD_RETRY_JITTER_PERCENT / 100);
      g_assert_cmpuint (wait, <=, expected);
      /* Connection i + 1 ended at once; the next came no sooner than the wait. */
      if (i > 0)
        g_assert_cmpint (g_array_index (f->fake->accepted_at, gint64, i + 1)
                             - g_array_index (f->fake->accepted_at, gint64, i),
                         >=, (gint64) wait * G_TIME_SPAN_MILLISECOND);
    }
  g_mutex_unlock (&f->fake->lock);
  /* The answer is kept through all of it. */
  g_assert_true (g_network_monitor_get_network_available (f->monitor));
  g_assert_cmpuint (f->changed, ==, 0);
}

/* A handler dropping the last reference to the monitor while the module announces a
 * change: the module holds its own reference across the announcement, so after the
 * handler it still reads the monitor (the other properties' notifications, then
 * network-changed) and the monitor is finalized only once the module is done with it.
 * The handler is on notify::network-available, the announcement's first step, which
 * GSignal's own reference (held during a signal's handlers) does not outlast: without
 * the module's reference the rest of the announcement reads freed memory, which
 * Valgrind reports (make check runs this test under it). */
static void
release_in_notify (GObject *monitor, GParamSpec *pspec G_GNUC_UNUSED, gpointer user_data)
{
  Fixture *f = user_data;
  g_signal_handlers_disconnect_by_data (monitor, f);
  g_object_unref (monitor);
  f->changed++;
}

static gboolean
finalized (gpointer data)
{
  Fixture *f = data;
  return f->monitor == NULL;
}

static void
test_release_in_handler (Fixture *f, gconstpointer data G_GNUC_UNUSED)
{
  g_signal_handlers_disconnect_by_data (f->monitor, f);
  g_signal_connect (f->monitor, "notify::network-available", G_CALLBACK (release_in_notify), f);
  /* Unavailable and metered: two notifications, then network-changed. */
  g_autofree char *down = path_line ("unsatisfied", "eth0", 2, TRUE);
  fake_send (f->fake, down);
  wait_for ("the monitor's finalization", finalized, f);
  g_assert_cmpuint (f->changed, ==, 1);
}

/* A handler that runs a main loop of its own (as one showing a dialog does) while
 * pathd sends the next change: that change is emitted too, from the nested loop. */
static void
wait_in_handler (GNetworkMonitor *monitor, gboolean available G_GNUC_UNUSED, gpointer user_data)
{
  Fixture *f = user_data;
  if (f->changed != 1)
    return;
  g_signal_handlers_disconnect_by_func (monitor, wait_in_handler, f);
  fake_send_path (f->fake, "satisfied", "eth0", 2, FALSE);
  wait_changed (f, 2);
}

static void
test_change_during_handler (Fixture *f, gconstpointer data G_GNUC_UNUSED)
{
  g_signal_connect_after (f->monitor, "network-changed", G_CALLBACK (wait_in_handler), f);
  fake_send_path (f->fake, "unsatisfied", "eth0", 2, FALSE);
  wait_changed (f, 2);
  g_assert_cmpstr (f->events->str, ==, "AC!AC!");
  g_assert_true (g_network_monitor_get_network_available (f->monitor));
}

/* can_reach, both variants: pathd's route answer decides (the fake routes ROUTABLE
 * only); one that is not usable while the network is available is HOST_UNREACHABLE. */
typedef struct {
  gboolean done;
  gboolean reachable;
  GError *error;
} Reach;

static void
on_reach (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Reach *reach = user_data;
  reach->reachable = g_network_monitor_can_reach_finish (G_NETWORK_MONITOR (source), result, &reach->error);
  reach->done = TRUE;
}

static gboolean
reach_done (gpointer data)
{
  return ((Reach *) data)->done;
}

static void
assert_reach (Fixture *f, const char *host, gboolean expected)
{
  g_autoptr (GSocketConnectable) target = g_network_address_new (host, 443);
  g_autoptr (GError) error = NULL;
  gboolean reachable = g_network_monitor_can_reach (f->monitor, target, NULL, &error);
  Reach reach = { FALSE, FALSE, NULL };
  g_network_monitor_can_reach_async (f->monitor, target, NULL, on_reach, &reach);
  wait_for ("can_reach_async's answer", reach_done, &reach);
  g_assert_cmpint (reachable, ==, expected);
  g_assert_cmpint (reach.reachable, ==, expected);
  if (expected)
    {
      g_assert_no_error (error);
      g_assert_no_error (reach.error);
    }
  else
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE);
      g_assert_error (reach.error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE);
      g_clear_error (&reach.error);
    }
}

static void
test_can_reach (Fixture *f, gconstpointer data G_GNUC_UNUSED)
{
  assert_reach (f, ROUTABLE, TRUE);
  assert_reach (f, "203.0.113.9", FALSE);
  /* Two questions per host, each on a connection of its own. */
  g_assert_cmpuint (fake_accepted (f->fake), ==, 5);
}

int
main (int argc, char **argv)
{
  /* Before GLib reads any of them. */
  g_setenv ("GIO_USE_NETWORK_MONITOR", "pathd", TRUE);
  g_setenv ("GIO_MODULE_DIR", PATHD_MODULE_DIR, TRUE);
  g_unsetenv ("GIO_EXTRA_MODULES");
  g_setenv ("G_MESSAGES_DEBUG", "pathd", TRUE);
  module_log = g_ptr_array_new_with_free_func (g_free);
  g_log_set_writer_func (capture_log, NULL, NULL);
  g_test_init (&argc, &argv, NULL);

  GError *error = NULL;
  g_autofree char *directory = g_dir_make_tmp ("test-gio-XXXXXX", &error);
  g_assert_no_error (error);
  socket_path = g_build_filename (directory, "pathd.sock", NULL);
  g_setenv ("PATHD_SOCKET", socket_path, TRUE);
  g_autofree char *satisfied = path_line ("satisfied", "eth0", 2, FALSE);
  default_fake = fake_start (socket_path, satisfied, FALSE);
  /* GIO's loader picks the default now; test_default looks at what it picked. */
  g_network_monitor_get_default ();
  g_unlink (socket_path);

  g_test_add_func ("/gio/default-is-pathd", test_default);
  g_test_add ("/gio/follows-path", Fixture, GINT_TO_POINTER (FALSE), setup, test_follows_path, teardown);
  g_test_add ("/gio/burst-is-one-emission", Fixture, GINT_TO_POINTER (FALSE), setup, test_burst, teardown);
  g_test_add ("/gio/restart-is-followed", Fixture, GINT_TO_POINTER (FALSE), setup, test_restart, teardown);
  g_test_add ("/gio/back-off-grows", Fixture, GINT_TO_POINTER (TRUE), setup, test_back_off, teardown);
  g_test_add ("/gio/change-during-handler", Fixture, GINT_TO_POINTER (FALSE), setup, test_change_during_handler,
              teardown);
  g_test_add ("/gio/release-in-handler", Fixture, GINT_TO_POINTER (FALSE), setup, test_release_in_handler,
              teardown);
  g_test_add ("/gio/can-reach", Fixture, GINT_TO_POINTER (FALSE), setup, test_can_reach, teardown);
  int status = g_test_run ();

  fake_stop (default_fake);
  g_rmdir (directory);
  g_free (socket_path);
  g_ptr_array_unref (module_log);
  return status;
}
