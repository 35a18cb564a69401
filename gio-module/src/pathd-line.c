/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
#include "pathd-line.h"

#include <json-glib/json-glib.h>
#include <string.h>

static gboolean
is_json_space (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* True when the bytes are shaped like one JSON object and nothing else, nested at most
 * PATHD_LINE_MAX_DEPTH deep (brackets in strings do not count). Bytes only: the rest
 * of the syntax is json-glib's to check. It must not see two values in one line
 * (json-glib 1.6 leaks the first root then: measured with Valgrind), nor deep nesting
 * (its parser recurses). */
static gboolean
shape_is_one_object (const char *data, gsize length)
{
  gsize i = 0;
  while (i < length && is_json_space (data[i]))
    i++;
  if (i == length || data[i] != '{')
    return FALSE;

  guint depth = 0;
  gboolean in_string = FALSE;
  gboolean escaped = FALSE;
  for (; i < length; i++)
    {
      char c = data[i];
      if (in_string)
        {
          if (escaped)
            escaped = FALSE;
          else if (c == '\\')
            escaped = TRUE;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > PATHD_LINE_MAX_DEPTH)
            return FALSE;
        }
      else if (c == ']' || c == '}')
        {
          if (--depth == 0)
            break;
        }
    }
  /* Past the object's end: whitespace only. */
  for (i++; i < length; i++)
    if (!is_json_space (data[i]))
      return FALSE;
  return TRUE;
}

/* The member `name` when it is a JSON value of `type`, else NULL (absent, null,
 * another type): every field is checked before use. */
static JsonNode *
member_of_type (JsonObject *object, const char *name, GType type)
{
  JsonNode *node = json_object_get_member (object, name);
  if (node == NULL || json_node_get_node_type (node) != JSON_NODE_VALUE)
    return NULL;
  return json_node_get_value_type (node) == type ? node : NULL;
}

static const char *
string_member (JsonObject *object, const char *name)
{
  JsonNode *node = member_of_type (object, name, G_TYPE_STRING);
  return node != NULL ? json_node_get_string (node) : NULL;
}

gboolean
pathd_status_is_usable (const char *status)
{
  return g_strcmp0 (status, "satisfied") == 0 || g_strcmp0 (status, "requiresConnection") == 0;
}

/* The connectivity check's verdict, or FALSE when there is none to use: not
 * configured, not yet checked, or a state newer than this module (docs/PROTOCOL.md:
 * treat an unknown state as unknown). */
static gboolean
checked_connectivity (JsonObject *path, GNetworkConnectivity *connectivity)
{
  JsonNode *node = json_object_get_member (path, "connectivity");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  const char *state = string_member (json_node_get_object (node), "state");
  if (g_strcmp0 (state, "full") == 0)
    *connectivity = G_NETWORK_CONNECTIVITY_FULL;
  else if (g_strcmp0 (state, "portal") == 0)
    *connectivity = G_NETWORK_CONNECTIVITY_PORTAL;
  else if (g_strcmp0 (state, "limited") == 0 || g_strcmp0 (state, "none") == 0)
    *connectivity = G_NETWORK_CONNECTIVITY_LIMITED;
  else
    return FALSE;
  return TRUE;
}

/* Appends one field of the traffic digest's input; the length prefix keeps fields
 * apart ("a","bc" is not "ab","c"). */
static void
digest_field (GChecksum *checksum, const char *text)
{
  char prefix[24];
  g_snprintf (prefix, sizeof prefix, "%" G_GSIZE_FORMAT ":", strlen (text));
  g_checksum_update (checksum, (const guchar *) prefix, -1);
  g_checksum_update (checksum, (const guchar *) text, -1);
}

/* The digest of where traffic goes: the first interface's name and index and the
 * gateways, in order. Missing or mistyped members read as none: they only decide
 * whether a network-changed is due, never what the properties say. */
static void
traffic_digest (JsonObject *path, guint8 digest[PATHD_TRAFFIC_DIGEST])
{
  GChecksum *checksum = g_checksum_new (G_CHECKSUM_SHA256);
  JsonNode *interfaces = json_object_get_member (path, "interfaces");
  JsonNode *first = NULL;
  if (interfaces != NULL && JSON_NODE_HOLDS_ARRAY (interfaces)
      && json_array_get_length (json_node_get_array (interfaces)) > 0)
    first = json_array_get_element (json_node_get_array (interfaces), 0);
  if (first != NULL && JSON_NODE_HOLDS_OBJECT (first))
    {
      JsonObject *interface = json_node_get_object (first);
      const char *name = string_member (interface, "name");
      JsonNode *index = member_of_type (interface, "index", G_TYPE_INT64);
      char index_text[24];
      g_snprintf (index_text, sizeof index_text, "%" G_GINT64_FORMAT, index != NULL ? json_node_get_int (index) : -1);
      digest_field (checksum, name != NULL ? name : "");
      digest_field (checksum, index_text);
    }
  else
    digest_field (checksum, "no interface");
  JsonNode *gateways = json_object_get_member (path, "gateways");
  if (gateways != NULL && JSON_NODE_HOLDS_ARRAY (gateways))
    {
      JsonArray *array = json_node_get_array (gateways);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *gateway = json_array_get_element (array, i);
          if (JSON_NODE_HOLDS_VALUE (gateway) && json_node_get_value_type (gateway) == G_TYPE_STRING)
            digest_field (checksum, json_node_get_string (gateway));
        }
    }
  gsize length = PATHD_TRAFFIC_DIGEST;
  g_checksum_get_digest (checksum, digest, &length);
  g_checksum_free (checksum);
}

static PathdLineKind
parse_path (JsonObject *path, PathdAnswer *answer)
{
  /* A status this module does not know is a string all the same: it reads as
   * unsatisfied (docs/PROTOCOL.md, "Version"); the other fields are still checked. */
  const char *status = string_member (path, "status");
  JsonNode *expensive = member_of_type (path, "isExpensive", G_TYPE_BOOLEAN);
  JsonNode *constrained = member_of_type (path, "isConstrained", G_TYPE_BOOLEAN);
  if (status == NULL || expensive == NULL || constrained == NULL)
    return PATHD_LINE_INVALID;

  answer->available = pathd_status_is_usable (status);
  /* Nothing is paid for a network that is not there (GLib's NetworkManager backend
   * says the same). */
  answer->metered = answer->available
                    && (json_node_get_boolean (expensive) || json_node_get_boolean (constrained));
  if (!answer->available)
    answer->connectivity = G_NETWORK_CONNECTIVITY_LOCAL;
  else if (!checked_connectivity (path, &answer->connectivity))
    answer->connectivity = G_NETWORK_CONNECTIVITY_FULL;
  traffic_digest (path, answer->traffic);
  return PATHD_LINE_PATH;
}

static PathdLineKind
parse_object (JsonObject *object, PathdLine *line)
{
  const char *type = string_member (object, "type");
  if (type == NULL)
    return PATHD_LINE_INVALID;

  if (strcmp (type, "hello") == 0)
    {
      JsonNode *protocol = member_of_type (object, "protocol", G_TYPE_INT64);
      return protocol != NULL && json_node_get_int (protocol) == 1 ? PATHD_LINE_HELLO : PATHD_LINE_INVALID;
    }
  if (strcmp (type, "path") == 0)
    return parse_path (object, &line->answer);
  if (strcmp (type, "route") == 0)
    {
      const char *status = string_member (object, "status");
      if (status == NULL)
        return PATHD_LINE_INVALID;
      line->route_usable = pathd_status_is_usable (status);
      return PATHD_LINE_ROUTE;
    }
  if (strcmp (type, "error") == 0)
    {
      line->shutting_down = g_strcmp0 (string_member (object, "code"), "shuttingDown") == 0;
      return PATHD_LINE_ERROR;
    }
  return PATHD_LINE_IGNORED;
}

void
pathd_line_parse (const char *data, gsize length, PathdLine *line)
{
  memset (line, 0, sizeof *line);
  line->kind = PATHD_LINE_INVALID;
  if (length == 0 || length > PATHD_LINE_MAX || !shape_is_one_object (data, length))
    return;

  /* json-glib wants UTF-8; it is checked here rather than trusted. */
  if (!g_utf8_validate_len (data, length, NULL))
    return;

  JsonParser *parser = json_parser_new_immutable ();
  GError *error = NULL;
  if (json_parser_load_from_data (parser, data, (gssize) length, &error))
    {
      JsonNode *root = json_parser_get_root (parser);
      if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
        line->kind = parse_object (json_node_get_object (root), line);
    }
  else
    g_error_free (error);
  g_object_unref (parser);
}

gboolean
pathd_answer_equal (const PathdAnswer *a, const PathdAnswer *b)
{
  return a->available == b->available && a->metered == b->metered && a->connectivity == b->connectivity;
}

gboolean
pathd_answer_same_traffic (const PathdAnswer *a, const PathdAnswer *b)
{
  return memcmp (a->traffic, b->traffic, PATHD_TRAFFIC_DIGEST) == 0;
}

PathdLinesResult
pathd_lines_take (GByteArray *buffer, const guint8 *bytes, gsize count, gsize max, PathdLineFunc each,
                  gpointer user_data)
{
  PathdLinesResult result = PATHD_LINES_MORE;
  g_byte_array_append (buffer, bytes, (guint) count);
  gsize start = 0;
  for (gsize i = buffer->len - count; i < buffer->len; i++)
    {
      if (buffer->data[i] != '\n')
        continue;
      gboolean go_on = each ((const char *) buffer->data + start, i - start, user_data);
      start = i + 1;
      if (!go_on)
        {
          result = PATHD_LINES_STOPPED;
          break;
        }
    }
  /* After a stop nothing more is read from this connection: the rest goes too. */
  g_byte_array_remove_range (buffer, 0, result == PATHD_LINES_STOPPED ? buffer->len : (guint) start);
  if (result == PATHD_LINES_MORE && buffer->len > max)
    result = PATHD_LINES_TOO_LONG;
  return result;
}
