/* SPDX-License-Identifier: Apache-2.0 */
// libcurl for pathd-probe, and nothing else links it.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, and Swift imports no variadic C
// function: these helpers fix the argument's type, one per kind of option
// (curl_easy_setopt(3): CURLOPTTYPE_LONG, _OBJECTPOINT/_STRINGPOINT, _FUNCTIONPOINT,
// _OFF_T) and of information (CURLINFO_LONG, _STRING, _OFF_T).
#include <curl/curl.h>

static inline CURLcode pathd_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pathd_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pathd_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*pathd_curl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode pathd_curl_set_write_function(CURL *handle, pathd_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode pathd_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pathd_curl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pathd_curl_get_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
