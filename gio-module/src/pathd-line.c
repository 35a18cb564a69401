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

/* A status the protocol defines; any other is a protocol violation (statuses are
 * not among its additive vocabularies), so the line is not believed. */
static gboolean
status_is_known (const char *status)
{
  return pathd_status_is_usable (status) || g_strcmp0 (status, "unsatisfied") == 0;
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

static PathdLineKind
parse_path (JsonObject *path, PathdAnswer *answer)
{
  const char *status = string_member (path, "status");
  JsonNode *expensive = member_of_type (path, "isExpensive", G_TYPE_BOOLEAN);
  JsonNode *constrained = member_of_type (path, "isConstrained", G_TYPE_BOOLEAN);
  if (!status_is_known (status) || expensive == NULL || constrained == NULL)
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
      if (!status_is_known (status))
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
