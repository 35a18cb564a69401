// SPDX-License-Identifier: Apache-2.0
/// The version of the socket protocol (docs/PROTOCOL.md). Additive changes (a new
/// field, a new message type, a new request) keep it; anything else bumps it.
public enum ProtocolVersion {
    public static let current = 1
}

/// The daemon's release version, reported in `hello` and by `--version`.
public enum DaemonVersion {
    public static let current = "0.1.0"
}

/// The longest request line the daemon accepts, newline excluded. A longer line gets
/// `lineTooLong` and the connection is closed: framing is lost.
public let maximumRequestLineLength = 64 * 1024

/// The longest `id` the daemon echoes, as JSON text (256 bytes): an id is copied into
/// every line of its subscription, so its size is a budget like any other.
public let maximumIDLength = 256
