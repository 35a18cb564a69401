/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright 2026 the pathd developers. Licensed under the Apache License, Version 2.0
 * (LICENSE at the top of the repository; https://www.apache.org/licenses/LICENSE-2.0). */
/* The line handler, value by value: the mapping README.md documents, and every kind
 * of line pathd (or anything else on its socket) may send. */
#include <string.h>

#include "pathd-line.h"

static PathdLine
parse (const char *text)
{
  PathdLine line;
  pathd_line_parse (text, strlen (text), &line);
  return line;
}

/* A path line with the given status, costs and connectivity member (NULL: none). */
static PathdLine
parse_path (const char *status, const char *expensive, const char *constrained, const char *connectivity)
{
  char *text = g_strdup_printf ("{\"type\":\"path\",\"generation\":1,\"sequence\":2,\"status\":\"%s\","
                                "\"unsatisfiedReason\":null,\"interfaces\":[],\"isExpensive\":%s,"
                                "\"isConstrained\":%s%s%s}",
                                status, expensive, constrained, connectivity != NULL ? ",\"connectivity\":" : "",
                                connectivity != NULL ? connectivity : "");
  PathdLine line = parse (text);
  g_free (text);
  return line;
}

static void
assert_answer (PathdLine line, gboolean available, gboolean metered, GNetworkConnectivity connectivity)
{
  g_assert_cmpint (line.kind, ==, PATHD_LINE_PATH);
  g_assert_cmpint (line.answer.available, ==, available);
  g_assert_cmpint (line.answer.metered, ==, metered);
  g_assert_cmpint (line.answer.connectivity, ==, connectivity);
}

static void
test_available (void)
{
  assert_answer (parse_path ("satisfied", "false", "false", NULL), TRUE, FALSE, G_NETWORK_CONNECTIVITY_FULL);
  assert_answer (parse_path ("requiresConnection", "false", "false", NULL), TRUE, FALSE, G_NETWORK_CONNECTIVITY_FULL);
  assert_answer (parse_path ("unsatisfied", "false", "false", NULL), FALSE, FALSE, G_NETWORK_CONNECTIVITY_LOCAL);
  /* A status newer than the module is unsatisfied (docs/PROTOCOL.md, "Version"),
   * whatever the costs and the check say. */
  assert_answer (parse_path ("degraded", "true", "false", "{\"state\":\"full\"}"), FALSE, FALSE,
                 G_NETWORK_CONNECTIVITY_LOCAL);
  assert_answer (parse_path ("maybe", "false", "false", NULL), FALSE, FALSE, G_NETWORK_CONNECTIVITY_LOCAL);
}

static PathdAnswer
answer_of (const char *text)
{
  PathdLine line = parse (text);
  g_assert_cmpint (line.kind, ==, PATHD_LINE_PATH);
  return line.answer;
}

/* Where traffic goes: the first interface and the gateways, nothing else. */
static void
test_traffic (void)
{
  PathdAnswer vA = answer_of ("{\"type\":\"path\",\"sequence\":1,\"status\":\"satisfied\",\"isExpensive\":false,"
                              "\"isConstrained\":false,\"interfaces\":[{\"name\":\"vA\",\"index\":2},"
                              "{\"name\":\"vC\",\"index\":3}],\"gateways\":[\"198.51.100.1\"]}");
  PathdAnswer same = answer_of ("{\"type\":\"path\",\"sequence\":9,\"status\":\"satisfied\",\"isExpensive\":false,"
                                "\"isConstrained\":false,\"interfaces\":[{\"name\":\"vA\",\"index\":2,\"new\":1},"
                                "{\"name\":\"vD\",\"index\":4}],\"gateways\":[\"198.51.100.1\"],\"reason\":\"x\"}");
  g_assert_true (pathd_answer_same_traffic (&vA, &same));
  PathdAnswer vC = answer_of ("{\"type\":\"path\",\"status\":\"satisfied\",\"isExpensive\":false,"
                              "\"isConstrained\":false,\"interfaces\":[{\"name\":\"vC\",\"index\":3}],"
                              "\"gateways\":[\"198.51.100.1\"]}");
  g_assert_false (pathd_answer_same_traffic (&vA, &vC));
  g_assert_true (pathd_answer_equal (&vA, &vC));
  PathdAnswer gateway = answer_of ("{\"type\":\"path\",\"status\":\"satisfied\",\"isExpensive\":false,"
                                   "\"isConstrained\":false,\"interfaces\":[{\"name\":\"vA\",\"index\":2}],"
                                   "\"gateways\":[\"198.51.100.254\"]}");
  g_assert_false (pathd_answer_same_traffic (&vA, &gateway));
  PathdAnswer two = answer_of ("{\"type\":\"path\",\"status\":\"satisfied\",\"isExpensive\":false,"
                               "\"isConstrained\":false,\"interfaces\":[{\"name\":\"vA\",\"index\":2}],"
                               "\"gateways\":[\"198.51.100.1\",\"fe80::1\"]}");
  g_assert_false (pathd_answer_same_traffic (&vA, &two));
  /* Same name, another link (deleted and made again). */
  PathdAnswer index = answer_of ("{\"type\":\"path\",\"status\":\"satisfied\",\"isExpensive\":false,"
                                 "\"isConstrained\":false,\"interfaces\":[{\"name\":\"vA\",\"index\":7}],"
                                 "\"gateways\":[\"198.51.100.1\"]}");
  g_assert_false (pathd_answer_same_traffic (&vA, &index));
  /* Missing or mistyped members are no interface and no gateway, never a bad line. */
  PathdAnswer none = answer_of ("{\"type\":\"path\",\"status\":\"unsatisfied\",\"isExpensive\":false,"
                                "\"isConstrained\":false}");
  PathdAnswer odd = answer_of ("{\"type\":\"path\",\"status\":\"unsatisfied\",\"isExpensive\":false,"
                               "\"isConstrained\":false,\"interfaces\":[],\"gateways\":[1,null]}");
  g_assert_true (pathd_answer_same_traffic (&none, &odd));
  g_assert_false (pathd_answer_same_traffic (&none, &vA));
}

static void
test_metered (void)
{
  assert_answer (parse_path ("satisfied", "true", "false", NULL), TRUE, TRUE, G_NETWORK_CONNECTIVITY_FULL);
  assert_answer (parse_path ("satisfied", "false", "true", NULL), TRUE, TRUE, G_NETWORK_CONNECTIVITY_FULL);
  assert_answer (parse_path ("satisfied", "true", "true", NULL), TRUE, TRUE, G_NETWORK_CONNECTIVITY_FULL);
  assert_answer (parse_path ("requiresConnection", "true", "false", NULL), TRUE, TRUE, G_NETWORK_CONNECTIVITY_FULL);
  /* Nothing is metered while nothing is available. */
  assert_answer (parse_path ("unsatisfied", "true", "true", NULL), FALSE, FALSE, G_NETWORK_CONNECTIVITY_LOCAL);
}

static void
test_connectivity (void)
{
  struct {
    const char *member;
    GNetworkConnectivity expected;
  } cases[] = {
    { "{\"state\":\"full\",\"url\":\"http://x/\"}", G_NETWORK_CONNECTIVITY_FULL },
    { "{\"state\":\"portal\",\"redirectTarget\":\"http://login/\"}", G_NETWORK_CONNECTIVITY_PORTAL },
    { "{\"state\":\"limited\"}", G_NETWORK_CONNECTIVITY_LIMITED },
    { "{\"state\":\"none\"}", G_NETWORK_CONNECTIVITY_LIMITED },
    /* Not checked, not configured, or newer than this module: from the path. */
    { "{\"state\":\"unknown\"}", G_NETWORK_CONNECTIVITY_FULL },
    { "{\"state\":\"partlyCloudy\"}", G_NETWORK_CONNECTIVITY_FULL },
    { "{\"state\":7}", G_NETWORK_CONNECTIVITY_FULL },
    { "{}", G_NETWORK_CONNECTIVITY_FULL },
    { "\"full\"", G_NETWORK_CONNECTIVITY_FULL },
    { "null", G_NETWORK_CONNECTIVITY_FULL },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    assert_answer (parse_path ("satisfied", "false", "false", cases[i].member), TRUE, FALSE, cases[i].expected);
  /* Unavailable is LOCAL whatever a stale check said. */
  assert_answer (parse_path ("unsatisfied", "false", "false", "{\"state\":\"full\"}"), FALSE, FALSE,
                 G_NETWORK_CONNECTIVITY_LOCAL);
}

static void
test_bad_paths (void)
{
  const char *lines[] = {
    "{\"type\":\"path\",\"isExpensive\":false,\"isConstrained\":false}",
    "{\"type\":\"path\",\"status\":\"satisfied\",\"isConstrained\":false}",
    "{\"type\":\"path\",\"status\":\"satisfied\",\"isExpensive\":false}",
    "{\"type\":\"path\",\"status\":\"satisfied\",\"isExpensive\":\"no\",\"isConstrained\":false}",
    "{\"type\":\"path\",\"status\":\"satisfied\",\"isExpensive\":false,\"isConstrained\":0}",
    "{\"type\":\"path\",\"status\":true,\"isExpensive\":false,\"isConstrained\":false}",
    /* An unknown status does not excuse the other fields. */
    "{\"type\":\"path\",\"status\":\"maybe\",\"isExpensive\":\"no\",\"isConstrained\":false}",
    "{\"type\":\"path\",\"status\":\"maybe\",\"isExpensive\":false}",
    "{\"type\":\"path\",\"status\":null,\"isExpensive\":false,\"isConstrained\":false}",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (lines); i++)
    g_assert_cmpint (parse (lines[i]).kind, ==, PATHD_LINE_INVALID);
}

static void
test_hello (void)
{
  g_assert_cmpint (parse ("{\"type\":\"hello\",\"protocol\":1,\"version\":\"0.1.0\",\"generation\":1}").kind, ==,
                   PATHD_LINE_HELLO);
  g_assert_cmpint (parse ("{\"type\":\"hello\",\"protocol\":1,\"somethingNew\":[1,{}]}").kind, ==, PATHD_LINE_HELLO);
  g_assert_cmpint (parse ("{\"type\":\"hello\",\"protocol\":2}").kind, ==, PATHD_LINE_INVALID);
  g_assert_cmpint (parse ("{\"type\":\"hello\",\"protocol\":\"1\"}").kind, ==, PATHD_LINE_INVALID);
  g_assert_cmpint (parse ("{\"type\":\"hello\",\"protocol\":1.0}").kind, ==, PATHD_LINE_INVALID);
  g_assert_cmpint (parse ("{\"type\":\"hello\"}").kind, ==, PATHD_LINE_INVALID);
}

static void
test_route (void)
{
  PathdLine line = parse ("{\"type\":\"route\",\"destination\":\"198.51.100.7\",\"status\":\"satisfied\","
                          "\"interface\":{\"name\":\"eth0\"},\"id\":7}");
  g_assert_cmpint (line.kind, ==, PATHD_LINE_ROUTE);
  g_assert_true (line.route_usable);
  line = parse ("{\"type\":\"route\",\"status\":\"requiresConnection\"}");
  g_assert_cmpint (line.kind, ==, PATHD_LINE_ROUTE);
  g_assert_true (line.route_usable);
  line = parse ("{\"type\":\"route\",\"status\":\"unsatisfied\",\"unsatisfiedReason\":\"routeRejects\"}");
  g_assert_cmpint (line.kind, ==, PATHD_LINE_ROUTE);
  g_assert_false (line.route_usable);
  g_assert_cmpint (parse ("{\"type\":\"route\"}").kind, ==, PATHD_LINE_INVALID);
  g_assert_cmpint (parse ("{\"type\":\"route\",\"status\":1}").kind, ==, PATHD_LINE_INVALID);
  /* A status newer than the module: not usable. */
  line = parse ("{\"type\":\"route\",\"status\":\"degraded\"}");
  g_assert_cmpint (line.kind, ==, PATHD_LINE_ROUTE);
  g_assert_false (line.route_usable);
}

static void
test_error_and_others (void)
{
  PathdLine line = parse ("{\"type\":\"error\",\"code\":\"shuttingDown\",\"message\":\"bye\"}");
  g_assert_cmpint (line.kind, ==, PATHD_LINE_ERROR);
  g_assert_true (line.shutting_down);
  line = parse ("{\"type\":\"error\",\"code\":\"unknownOp\",\"id\":3}");
  g_assert_cmpint (line.kind, ==, PATHD_LINE_ERROR);
  g_assert_false (line.shutting_down);
  g_assert_cmpint (parse ("{\"type\":\"error\",\"code\":5}").kind, ==, PATHD_LINE_ERROR);
  /* The additive rule: unknown message types are ignored, not errors. */
  g_assert_cmpint (parse ("{\"type\":\"resync\",\"reason\":\"x\",\"generation\":2}").kind, ==, PATHD_LINE_IGNORED);
  g_assert_cmpint (parse ("{\"type\":\"somethingNew\",\"x\":[1,2,3]}").kind, ==, PATHD_LINE_IGNORED);
  g_assert_cmpint (parse ("{\"type\":\"pong\"}").kind, ==, PATHD_LINE_IGNORED);
}

static void
test_garbage (void)
{
  const char *lines[] = { "", " ", "null", "[]", "1", "\"path\"", "{", "{\"type\":1}", "{}", "{\"type\":null}",
                          "{\"type\":\"path\"", "not json at all", "{\"type\":\"path\"}}" };
  for (gsize i = 0; i < G_N_ELEMENTS (lines); i++)
    g_assert_cmpint (parse (lines[i]).kind, ==, PATHD_LINE_INVALID);

  /* Not UTF-8, and a NUL inside the line. */
  const char bad_utf8[] = "{\"type\":\"hello\",\"protocol\":1,\"v\":\"\xff\"}";
  PathdLine line;
  pathd_line_parse (bad_utf8, sizeof bad_utf8 - 1, &line);
  g_assert_cmpint (line.kind, ==, PATHD_LINE_INVALID);
  const char with_nul[] = "{\"type\":\"hello\",\"protocol\":1}\0{}";
  pathd_line_parse (with_nul, sizeof with_nul - 1, &line);
  g_assert_cmpint (line.kind, ==, PATHD_LINE_INVALID);

  /* One object a line: a second value after it is refused (json-glib 1.6 would leak
   * the first), whitespace is not. */
  g_assert_cmpint (parse ("{\"type\":\"hello\",\"protocol\":1}{\"type\":\"hello\",\"protocol\":1}").kind, ==,
                   PATHD_LINE_INVALID);
  g_assert_cmpint (parse ("{\"type\":\"hello\",\"protocol\":1} 1").kind, ==, PATHD_LINE_INVALID);
  g_assert_cmpint (parse ("{\"type\":\"hello\",\"protocol\":1}]").kind, ==, PATHD_LINE_INVALID);
  g_assert_cmpint (parse ("1 {\"type\":\"hello\",\"protocol\":1}").kind, ==, PATHD_LINE_INVALID);
  g_assert_cmpint (parse (" \t{\"type\":\"hello\",\"protocol\":1}\r ").kind, ==, PATHD_LINE_HELLO);

  /* Not NUL-terminated: only `length` bytes are read. */
  const char *hello = "{\"type\":\"hello\",\"protocol\":1}garbage";
  pathd_line_parse (hello, strlen ("{\"type\":\"hello\",\"protocol\":1}"), &line);
  g_assert_cmpint (line.kind, ==, PATHD_LINE_HELLO);
}

static void
test_depth_and_length (void)
{
  /* Nesting past the bound is refused before the (recursive) parser sees it. */
  GString *deep = g_string_new ("{\"type\":\"ignored\",\"x\":");
  for (int i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  PathdLine line;
  pathd_line_parse (deep->str, deep->len, &line);
  g_assert_cmpint (line.kind, ==, PATHD_LINE_INVALID);
  g_string_free (deep, TRUE);

  /* Brackets inside strings do not count. */
  GString *text = g_string_new ("{\"type\":\"hello\",\"protocol\":1,\"s\":\"");
  for (int i = 0; i < 1000; i++)
    g_string_append (text, "[{\\\"");
  g_string_append (text, "\"}");
  pathd_line_parse (text->str, text->len, &line);
  g_assert_cmpint (line.kind, ==, PATHD_LINE_HELLO);
  g_string_free (text, TRUE);

  /* Past PATHD_LINE_MAX: refused unread. */
  GString *huge = g_string_new ("{\"type\":\"hello\",\"protocol\":1,\"pad\":\"");
  while (huge->len <= PATHD_LINE_MAX)
    g_string_append (huge, "xxxxxxxxxxxxxxxx");
  g_string_append (huge, "\"}");
  pathd_line_parse (huge->str, huge->len, &line);
  g_assert_cmpint (line.kind, ==, PATHD_LINE_INVALID);
  g_string_free (huge, TRUE);
}

static void
test_equal (void)
{
  PathdAnswer a = { TRUE, FALSE, G_NETWORK_CONNECTIVITY_FULL, { 0 } };
  PathdAnswer b = a;
  g_assert_true (pathd_answer_equal (&a, &b));
  b.metered = TRUE;
  g_assert_false (pathd_answer_equal (&a, &b));
  b = a;
  b.connectivity = G_NETWORK_CONNECTIVITY_PORTAL;
  g_assert_false (pathd_answer_equal (&a, &b));
  b = a;
  b.available = FALSE;
  g_assert_false (pathd_answer_equal (&a, &b));
}

/* Collects the lines pathd_lines_take hands over; stops at a line reading "stop". */
static gboolean
collect_line (const char *data, gsize length, gpointer user_data)
{
  GPtrArray *lines = user_data;
  g_ptr_array_add (lines, g_strndup (data, length));
  return !(length == 4 && memcmp (data, "stop", 4) == 0);
}

static PathdLinesResult
take (GByteArray *buffer, const char *text, gsize max, GPtrArray *lines)
{
  return pathd_lines_take (buffer, (const guint8 *) text, strlen (text), max, collect_line, lines);
}

/* The framing: lines split across reads, several in one read, an empty line, a stop,
 * and an incomplete line past the bound. */
static void
test_framing (void)
{
  g_autoptr (GByteArray) buffer = g_byte_array_new ();
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpint (take (buffer, "{\"a\"", 64, lines), ==, PATHD_LINES_MORE);
  g_assert_cmpuint (lines->len, ==, 0);
  g_assert_cmpint (take (buffer, ":1}\n\nsecond\nthi", 64, lines), ==, PATHD_LINES_MORE);
  g_assert_cmpuint (lines->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (lines, 0), ==, "{\"a\":1}");
  g_assert_cmpstr (g_ptr_array_index (lines, 1), ==, "");
  g_assert_cmpstr (g_ptr_array_index (lines, 2), ==, "second");
  g_assert_cmpuint (buffer->len, ==, 3);
  g_assert_cmpint (take (buffer, "rd\nstop\nnever\nkept", 64, lines), ==, PATHD_LINES_STOPPED);
  g_assert_cmpuint (lines->len, ==, 5);
  g_assert_cmpstr (g_ptr_array_index (lines, 3), ==, "third");
  g_assert_cmpstr (g_ptr_array_index (lines, 4), ==, "stop");
  g_assert_cmpuint (buffer->len, ==, 0);
  /* The bound is on what waits for its newline; a complete line of any length passes. */
  g_assert_cmpint (take (buffer, "0123456789\n0123", 8, lines), ==, PATHD_LINES_MORE);
  g_assert_cmpuint (lines->len, ==, 6);
  g_assert_cmpint (take (buffer, "45678", 8, lines), ==, PATHD_LINES_TOO_LONG);
  g_assert_cmpuint (lines->len, ==, 6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/line/available", test_available);
  g_test_add_func ("/line/metered", test_metered);
  g_test_add_func ("/line/connectivity", test_connectivity);
  g_test_add_func ("/line/traffic", test_traffic);
  g_test_add_func ("/line/bad-paths", test_bad_paths);
  g_test_add_func ("/line/hello", test_hello);
  g_test_add_func ("/line/route", test_route);
  g_test_add_func ("/line/error-and-others", test_error_and_others);
  g_test_add_func ("/line/garbage", test_garbage);
  g_test_add_func ("/line/depth-and-length", test_depth_and_length);
  g_test_add_func ("/line/equal", test_equal);
  g_test_add_func ("/line/framing", test_framing);
  return g_test_run ();
}
