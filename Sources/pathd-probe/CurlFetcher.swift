// SPDX-License-Identifier: Apache-2.0
import CCurl
import ConnectivityCheck
import PathModel
import PathConfiguration
import PathProtocol

/// One fetch through libcurl: a fresh easy handle per fetch (no connection or cache
/// survives from one check to the next), bound to the interface (`CURLOPT_INTERFACE`
/// with `if!`, SO_BINDTODEVICE: no fallback to another interface), redirects reported
/// and never followed, proxies from the environment as libcurl reads them
/// (`http_proxy`, `https_proxy`, `no_proxy`), TLS verified against the system's CAs.
struct CurlFetcher: ConnectivityFetcher {
    /// curl_global_init(3): once, before any other thread uses libcurl.
    static func initialize() -> Bool {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }

    func fetch(url: String, interface: String, timeout: Duration,
               expected: ConnectivitySettings.ExpectedContent) -> FetchResult {
        guard let handle = curl_easy_init() else { return FetchResult(ending: .failed("curl_easy_init failed")) }
        defer { curl_easy_cleanup(handle) }
        let keep: Int
        if case .bytes(let bytes) = expected { keep = bytes.count + 1 } else { keep = 0 }
        let sink = BodySink(keep: keep)
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Cache-Control: no-cache")
        headers = curl_slist_append(headers, "Pragma: no-cache")
        defer { curl_slist_free_all(headers) }
        let milliseconds = Int(TimeSpan.milliseconds(timeout))
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // The sink outlives the transfer: it is released after curl_easy_perform returns.
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        let code: CURLcode = errorText.withUnsafeMutableBufferPointer { buffer in
            let settings: [CURLcode] = [
                pathd_curl_set_string(handle, CURLOPT_URL, url),
                pathd_curl_set_string(handle, CURLOPT_INTERFACE, "if!" + interface),
                pathd_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
                pathd_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
                pathd_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds),
                pathd_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds),
                // Threads: no SIGALRM for name resolution timeouts.
                pathd_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                // The threaded resolver otherwise joins a getaddrinfo(3) that outlives the
                // timeout, and a name server that never answers holds the check for
                // resolv.conf(5)'s timeout × attempts, not Timeout=. With it the thread is
                // detached and frees its own data when getaddrinfo returns
                // (CURLOPT_QUICK_EXIT(3), libcurl 7.87; lib/asyn-thread.c).
                pathd_curl_set_long(handle, CURLOPT_QUICK_EXIT, 1),
                pathd_curl_set_long(handle, CURLOPT_FRESH_CONNECT, 1),
                pathd_curl_set_long(handle, CURLOPT_FORBID_REUSE, 1),
                pathd_curl_set_string(handle, CURLOPT_USERAGENT, "pathd-probe/\(DaemonVersion.current)"),
                pathd_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers)),
                pathd_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(buffer.baseAddress)),
                pathd_curl_set_write_function(handle, { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let sink = Unmanaged<BodySink>.fromOpaque(context).takeUnretainedValue()
                    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
                    return sink.take(bytes) ? size * count : 0
                }),
                pathd_curl_set_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque()),
            ]
            if let failed = settings.first(where: { $0 != CURLE_OK }) { return failed }
            return curl_easy_perform(handle)
        }
        var status = 0
        _ = pathd_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var totalMicroseconds: curl_off_t = 0
        _ = pathd_curl_get_off_t(handle, CURLINFO_TOTAL_TIME_T, &totalMicroseconds)
        var connectMicroseconds: curl_off_t = 0
        _ = pathd_curl_get_off_t(handle, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
        var redirect: UnsafeMutablePointer<CChar>?
        _ = pathd_curl_get_string(handle, CURLINFO_REDIRECT_URL, &redirect)

        // CURLOPT_ERRORBUFFER's text when libcurl wrote one (it names host, port, timings),
        // else the code's generic words.
        let written = errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let message = written.isEmpty
            ? String(cString: curl_easy_strerror(code)) : String(decoding: written, as: UTF8.self)
        let ending: FetchResult.Ending
        switch code {
        case CURLE_OK:
            ending = .complete
        case CURLE_WRITE_ERROR where sink.isTruncated:
            ending = .truncated
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_INTERFACE_FAILED:
            ending = .couldNotConnect(message)
        case CURLE_OPERATION_TIMEDOUT where connectMicroseconds == 0:
            ending = .couldNotConnect(message)
        default:
            ending = .failed(message)
        }
        return FetchResult(ending: ending, httpStatus: status == 0 ? nil : status,
                           redirectTarget: redirect.map { String(cString: $0) },
                           bytesReceived: sink.count, bodySHA256: sink.digest(), bodyPrefix: sink.prefix,
                           elapsedMilliseconds: Int64(totalMicroseconds / 1000))
    }
}
