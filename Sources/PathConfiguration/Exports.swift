// SPDX-License-Identifier: Apache-2.0
// pathd.conf's sections and keys (PathSettings) are what a `Configuration` holds: a
// program that reads the files names them through this module alone.
@_exported import PathSettings
