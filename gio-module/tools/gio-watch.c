/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* gio-watch: what g_network_monitor_get_default() tells an unchanged GLib program,
 * one JSON line per event on stdout (see ../README.md). Commands on stdin, one a line:
 *   state                      the current answer
 *   can-reach HOST PORT        g_network_monitor_can_reach
 *   can-reach-async HOST PORT  g_network_monitor_can_reach_async
 *   drop-on-change             a second monitor, released by its own network-changed handler
 * End of input exits 0. Links GIO only: the JSON is written by hand. */
#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <stdio.h>
#include <string.h>

static GNetworkMonitor *monitor;
static GMainLoop *loop;
static guint pending; /* asynchronous questions not yet answered */
static gboolean input_ended;

static void
append_json_string (GString *out, const char *text)
{
  if (text == NULL)
    {
      g_string_append (out, "null");
      return;
    }
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (out, "\\%c", *p);
      else if (*p < 0x20)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  g_string_append_c (out, '"');
}

static const char *
connectivity_name (GNetworkConnectivity connectivity)
{
  switch (connectivity)
    {
    case G_NETWORK_CONNECTIVITY_LOCAL:
      return "local";
    case G_NETWORK_CONNECTIVITY_LIMITED:
      return "limited";
    case G_NETWORK_CONNECTIVITY_PORTAL:
      return "portal";
    case G_NETWORK_CONNECTIVITY_FULL:
      return "full";
    default:
      return "unknown";
    }
}

static void
emit (GString *line)
{
  g_string_append_c (line, '\n');
  fputs (line->str, stdout);
  fflush (stdout);
  g_string_free (line, TRUE);
}

static void
print_state (const char *event)
{
  GString *line = g_string_new ("{\"event\":");
  append_json_string (line, event);
  g_string_append (line, ",\"monitor\":");
  append_json_string (line, G_OBJECT_TYPE_NAME (monitor));
  g_string_append_printf (line, ",\"available\":%s,\"metered\":%s,\"connectivity\":\"%s\"}",
                          g_network_monitor_get_network_available (monitor) ? "true" : "false",
                          g_network_monitor_get_network_metered (monitor) ? "true" : "false",
                          connectivity_name (g_network_monitor_get_connectivity (monitor)));
  emit (line);
}

/* G_IO_ERROR_HOST_UNREACHABLE -> "HOST_UNREACHABLE"; other domains as DOMAIN:CODE. */
static char *
error_name (const GError *error)
{
  if (error->domain == G_IO_ERROR)
    {
      GEnumClass *errors = g_type_class_ref (G_TYPE_IO_ERROR_ENUM);
      GEnumValue *value = g_enum_get_value (errors, error->code);
      char *name = g_strdup (value != NULL ? value->value_name + strlen ("G_IO_ERROR_") : "UNKNOWN");
      g_type_class_unref (errors);
      return name;
    }
  return g_strdup_printf ("%s:%d", g_quark_to_string (error->domain), error->code);
}

static void
print_reach (const char *host, gboolean reachable, const GError *error)
{
  GString *line = g_string_new ("{\"event\":\"can-reach\",\"host\":");
  append_json_string (line, host);
  g_string_append_printf (line, ",\"reachable\":%s,\"error\":", reachable ? "true" : "false");
  char *name = error != NULL ? error_name (error) : NULL;
  append_json_string (line, name);
  g_free (name);
  g_string_append (line, ",\"message\":");
  append_json_string (line, error != NULL ? error->message : NULL);
  g_string_append_c (line, '}');
  emit (line);
}

static void
maybe_quit (void)
{
  if (input_ended && pending == 0)
    g_main_loop_quit (loop);
}

static void
on_reach_answer (GObject *source, GAsyncResult *result, gpointer user_data)
{
  char *host = user_data;
  GError *error = NULL;
  gboolean reachable = g_network_monitor_can_reach_finish (G_NETWORK_MONITOR (source), result, &error);
  print_reach (host, reachable, error);
  g_clear_error (&error);
  g_free (host);
  pending--;
  maybe_quit ();
}

/* The handler of the second monitor: releases the last reference to the monitor that
 * is emitting, as a program closing a window might. */
static void
on_second_changed (GNetworkMonitor *second, gboolean available, gpointer user_data G_GNUC_UNUSED)
{
  GString *line = g_string_new ("{\"event\":\"dropped\",\"available\":");
  g_string_append (line, available ? "true" : "false");
  g_string_append_c (line, '}');
  /* Once: the monitor may still be emitting this. */
  g_signal_handlers_disconnect_by_func (second, on_second_changed, NULL);
  g_object_unref (second);
  emit (line);
}

/* A monitor of the default's type that is not the default: the program owns its only
 * reference, which its network-changed handler drops. */
static void
create_second_monitor (void)
{
  GError *error = NULL;
  GNetworkMonitor *second = g_initable_new (G_OBJECT_TYPE (monitor), NULL, &error, NULL);
  GString *line = g_string_new ("{\"event\":\"second\",\"error\":");
  append_json_string (line, error != NULL ? error->message : NULL);
  g_string_append_c (line, '}');
  if (second != NULL)
    g_signal_connect (second, "network-changed", G_CALLBACK (on_second_changed), NULL);
  g_clear_error (&error);
  emit (line);
}

static void
run_command (const char *command)
{
  g_auto (GStrv) words = g_strsplit_set (command, " \t", -1);
  guint count = g_strv_length (words);
  gboolean sync = count == 3 && strcmp (words[0], "can-reach") == 0;
  gboolean async = count == 3 && strcmp (words[0], "can-reach-async") == 0;
  guint64 port = 0;
  if (count == 1 && strcmp (words[0], "state") == 0)
    print_state ("state");
  else if (count == 1 && strcmp (words[0], "drop-on-change") == 0)
    create_second_monitor ();
  else if ((sync || async) && g_ascii_string_to_unsigned (words[2], 10, 0, 65535, &port, NULL))
    {
      g_autoptr (GSocketConnectable) target = g_network_address_new (words[1], (guint16) port);
      if (sync)
        {
          g_autoptr (GError) error = NULL;
          gboolean reachable = g_network_monitor_can_reach (monitor, target, NULL, &error);
          print_reach (words[1], reachable, error);
        }
      else
        {
          pending++;
          g_network_monitor_can_reach_async (monitor, target, NULL, on_reach_answer, g_strdup (words[1]));
        }
    }
  else if (count > 0 && words[0][0] != '\0')
    {
      GString *line = g_string_new ("{\"event\":\"error\",\"message\":");
      g_autofree char *message = g_strdup_printf ("unknown command: %s", command);
      append_json_string (line, message);
      g_string_append_c (line, '}');
      emit (line);
    }
}

static void
on_line (GObject *source, GAsyncResult *result, gpointer user_data G_GNUC_UNUSED)
{
  GDataInputStream *input = G_DATA_INPUT_STREAM (source);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = g_data_input_stream_read_line_finish_utf8 (input, result, NULL, &error);
  if (text == NULL)
    {
      if (error != NULL)
        fprintf (stderr, "gio-watch: reading commands: %s\n", error->message);
      input_ended = TRUE;
      maybe_quit ();
      return;
    }
  run_command (text);
  g_data_input_stream_read_line_async (input, G_PRIORITY_DEFAULT, NULL, on_line, NULL);
}

static void
on_network_changed (GNetworkMonitor *source G_GNUC_UNUSED, gboolean available G_GNUC_UNUSED,
                    gpointer user_data G_GNUC_UNUSED)
{
  print_state ("changed");
}

/* Every log message to stderr: GLib's default writer sends debug and info to stdout,
 * which carries the JSON lines. G_MESSAGES_DEBUG still selects the debug domains. */
static GLogWriterOutput
write_log_to_stderr (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data G_GNUC_UNUSED)
{
  const char *domain = NULL;
  for (gsize i = 0; i < n_fields; i++)
    if (strcmp (fields[i].key, "GLIB_DOMAIN") == 0 && fields[i].length < 0)
      domain = fields[i].value;
  if (g_log_writer_default_would_drop (level, domain))
    return G_LOG_WRITER_HANDLED;
  g_autofree char *text = g_log_writer_format_fields (level, fields, n_fields, FALSE);
  fprintf (stderr, "%s\n", text);
  return G_LOG_WRITER_HANDLED;
}

int
main (void)
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  g_log_set_writer_func (write_log_to_stderr, NULL, NULL);
  loop = g_main_loop_new (NULL, FALSE);
  monitor = g_network_monitor_get_default ();
  print_state ("initial");
  g_signal_connect (monitor, "network-changed", G_CALLBACK (on_network_changed), NULL);

  GInputStream *stdin_stream = g_unix_input_stream_new (0, FALSE);
  GDataInputStream *input = g_data_input_stream_new (stdin_stream);
  g_object_unref (stdin_stream);
  g_data_input_stream_read_line_async (input, G_PRIORITY_DEFAULT, NULL, on_line, NULL);
  g_main_loop_run (loop);

  g_signal_handlers_disconnect_by_func (monitor, on_network_changed, NULL);
  g_object_unref (input);
  g_main_loop_unref (loop);
  return 0;
}
