/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* can_reach (pathd-reach.h). The errors are the ones GLib's own backends return,
 * with GLib's translated words. */
#include "pathd-reach.h"

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

gboolean
pathd_reach (const char *socket_path, const PathdAnswer *answer, GSocketConnectable *connectable,
             GCancellable *cancellable, GError **error)
{
  g_autoptr (GSocketAddressEnumerator) enumerator = g_socket_connectable_proxy_enumerate (connectable);
  GError *local_error = NULL;
  GSocketAddress *next;

  while ((next = g_socket_address_enumerator_next (enumerator, cancellable, &local_error)) != NULL)
    {
      g_autoptr (GSocketAddress) address = next;
      if (!G_IS_INET_SOCKET_ADDRESS (address))
        continue;
      gboolean usable = FALSE;
      GError *query_error = NULL;
      if (!pathd_route_query (socket_path, G_INET_SOCKET_ADDRESS (address), &usable, cancellable, &query_error))
        {
          if (g_error_matches (query_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              g_propagate_error (error, query_error);
              return FALSE;
            }
          return fall_back_to_path (answer, query_error, error);
        }
      if (usable)
        return TRUE;
    }
  if (local_error != NULL)
    finish_with_resolver_error (local_error, answer, error);
  else
    set_unreachable (error, answer);
  return FALSE;
}

/* What the thread works on: copies, so that it touches nothing of the monitor, whose
 * fields belong to its own thread. */
typedef struct {
  char *socket_path;
  PathdAnswer answer;
  GSocketConnectable *connectable;
} Question;

static void
question_free (gpointer data)
{
  Question *question = data;
  g_free (question->socket_path);
  g_object_unref (question->connectable);
  g_free (question);
}

static void
reach_in_thread (GTask *work, gpointer source_object G_GNUC_UNUSED, gpointer task_data, GCancellable *cancellable)
{
  Question *question = task_data;
  GError *error = NULL;
  if (pathd_reach (question->socket_path, &question->answer, question->connectable, cancellable, &error))
    g_task_return_boolean (work, TRUE);
  else
    g_task_return_error (work, error);
}

/* Completes the caller's task (whose source is the monitor) from the thread's, on the
 * caller's main context. */
static void
on_reached (GObject *source G_GNUC_UNUSED, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  if (g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* One can_reach for both variants, as GIO's default asynchronous methods run the
 * synchronous ones: the resolver and pathd's answer are waited for in a GTask thread,
 * never on the caller's. The thread gets a task of its own, without the monitor: a
 * thread may drop the last reference to its task there, and the monitor is released
 * on its own thread only. */
void
pathd_reach_async (gpointer source_object, const char *socket_path, const PathdAnswer *answer,
                   GSocketConnectable *connectable, GCancellable *cancellable, GAsyncReadyCallback callback,
                   gpointer user_data)
{
  GTask *task = g_task_new (source_object, cancellable, callback, user_data);
  g_task_set_source_tag (task, pathd_reach_async);
  Question *question = g_new0 (Question, 1);
  question->socket_path = g_strdup (socket_path);
  question->answer = *answer;
  question->connectable = g_object_ref (connectable);
  g_autoptr (GTask) work = g_task_new (NULL, cancellable, on_reached, task);
  g_task_set_task_data (work, question, question_free);
  g_task_run_in_thread (work, reach_in_thread);
}

gboolean
pathd_reach_finish (gpointer source_object, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, source_object), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
