// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite("SocketPath: where pathd listens and clients look")
struct SocketPathTests {
    @Test(arguments: [
        (UInt32(0), [String: String](), "/run/pathd/pathd.sock"),
        (0, ["XDG_RUNTIME_DIR": "/run/user/0"], "/run/pathd/pathd.sock"),
        (1000, ["XDG_RUNTIME_DIR": "/run/user/1000"], "/run/user/1000/pathd/pathd.sock"),
        (1000, ["XDG_RUNTIME_DIR": "/run/user/1000/"], "/run/user/1000/pathd/pathd.sock"),
        (4242, ["XDG_RUNTIME_DIR": "/tmp/rt", "HOME": "/home/x"], "/tmp/rt/pathd/pathd.sock"),
    ] as [(UInt32, [String: String], String)])
    func defaultPath(userID: UInt32, environment: [String: String], expected: String) throws {
        #expect(try SocketPath.defaultPath(userID: userID, environment: environment) == expected)
    }

    /// Why user 1000 has no default socket in `environment`; nil (and a recorded issue) when it has one.
    private static func refusal(_ environment: [String: String]) -> String? {
        do throws(SocketPath.NoDefaultPath) {
            let path = try SocketPath.defaultPath(userID: 1000, environment: environment)
            Issue.record("a default socket: \(path)")
            return nil
        } catch {
            return error.description
        }
    }

    /// Unset and empty are "not set"; a relative one is set but unusable (the XDG Base
    /// Directory Specification says to ignore it), and says so, with its value.
    @Test(arguments: [
        ([String: String](), "XDG_RUNTIME_DIR is not set"),
        (["HOME": "/home/user"], "XDG_RUNTIME_DIR is not set"),
        (["XDG_RUNTIME_DIR": ""], "XDG_RUNTIME_DIR is not set"),
        (["XDG_RUNTIME_DIR": "run/user/1000"], #"XDG_RUNTIME_DIR is not an absolute path ("run/user/1000")"#),
        (["XDG_RUNTIME_DIR": "rel"], #"XDG_RUNTIME_DIR is not an absolute path ("rel")"#),
        (["XDG_RUNTIME_DIR": "./run"], #"XDG_RUNTIME_DIR is not an absolute path ("./run")"#),
        (["XDG_RUNTIME_DIR": "~/run"], #"XDG_RUNTIME_DIR is not an absolute path ("~/run")"#),
        (["XDG_RUNTIME_DIR": " /run/user/1000"], #"XDG_RUNTIME_DIR is not an absolute path (" /run/user/1000")"#),
    ])
    func userWithoutAnAbsoluteRuntimeDirectoryHasNoDefault(environment: [String: String], why: String) {
        #expect(Self.refusal(environment) == why)
    }

    /// sun_path holds 107 bytes and a NUL: the runtime directory may take 90 of them
    /// ("/pathd/pathd.sock" takes 17).
    @Test func runtimeDirectoryTooLongForASocket() throws {
        let fits = "/" + String(repeating: "r", count: 89)
        #expect(try SocketPath.defaultPath(userID: 1000, environment: ["XDG_RUNTIME_DIR": fits])
            == fits + "/pathd/pathd.sock")
        let long = fits + "r"
        #expect(Self.refusal(["XDG_RUNTIME_DIR": long])
            == "the default socket \"\(long)/pathd/pathd.sock\" (in XDG_RUNTIME_DIR) is longer than 107 bytes")
        // Root's socket is the system one, whatever the environment.
        #expect(try SocketPath.defaultPath(userID: 0, environment: ["XDG_RUNTIME_DIR": "rel"])
                == "/run/pathd/pathd.sock")
    }

    @Test func systemPath() {
        #expect(SocketPath.systemPath == "/run/pathd/pathd.sock")
    }
}

@Suite("client socket search order")
struct ClientSearchOrderTests {
    @Test func explicitPathAlone() {
        #expect(SocketPath.clientSearchOrder(explicit: "/x.sock",
                                             environment: ["PATHD_SOCKET": "/y", "XDG_RUNTIME_DIR": "/run/user/1"])
                == ["/x.sock"])
    }

    @Test func environmentVariableAlone() {
        #expect(SocketPath.clientSearchOrder(explicit: nil,
                                             environment: ["PATHD_SOCKET": "/y", "XDG_RUNTIME_DIR": "/r"])
                == ["/y"])
    }

    @Test func systemThenUser() {
        #expect(SocketPath.clientSearchOrder(explicit: nil,
                                             environment: ["PATHD_SOCKET": "", "XDG_RUNTIME_DIR": "/r/"])
                == ["/run/pathd/pathd.sock", "/r/pathd/pathd.sock"])
        #expect(SocketPath.clientSearchOrder(explicit: nil, environment: [:]) == ["/run/pathd/pathd.sock"])
    }
}
