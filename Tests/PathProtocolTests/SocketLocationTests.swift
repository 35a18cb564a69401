import PathProtocol
import Testing

@Suite("SocketLocation")
struct SocketLocationTests {
    @Test(arguments: [
        (UInt32(0), [String: String](), "/run/pathd/pathd.sock"),
        (0, ["XDG_RUNTIME_DIR": "/run/user/0"], "/run/pathd/pathd.sock"),
        (1000, ["XDG_RUNTIME_DIR": "/run/user/1000"], "/run/user/1000/pathd/pathd.sock"),
        (1000, ["XDG_RUNTIME_DIR": "/run/user/1000/"], "/run/user/1000/pathd/pathd.sock"),
        (4242, ["XDG_RUNTIME_DIR": "/tmp/rt", "HOME": "/home/x"], "/tmp/rt/pathd/pathd.sock"),
    ] as [(UInt32, [String: String], String)])
    func defaultPath(userID: UInt32, environment: [String: String], expected: String) {
        #expect(SocketLocation.defaultPath(userID: userID, environment: environment) == expected)
    }

    @Test(arguments: [
        [String: String](), ["HOME": "/home/user"], ["XDG_RUNTIME_DIR": ""], ["XDG_RUNTIME_DIR": "run/user/1000"],
        ["XDG_RUNTIME_DIR": "./run"], ["XDG_RUNTIME_DIR": "~/run"],
    ])
    func userWithoutAnAbsoluteRuntimeDirectoryHasNoDefault(environment: [String: String]) {
        #expect(SocketLocation.defaultPath(userID: 1000, environment: environment) == nil)
    }

    @Test func systemPath() {
        #expect(SocketLocation.systemPath == "/run/pathd/pathd.sock")
    }
}

@Suite("client socket search order")
struct ClientSearchOrderTests {
    @Test func explicitPathAlone() {
        #expect(SocketLocation.clientSearchOrder(explicit: "/x.sock",
                                                  environment: ["PATHD_SOCKET": "/y", "XDG_RUNTIME_DIR": "/run/user/1"])
                == ["/x.sock"])
    }

    @Test func environmentVariableAlone() {
        #expect(SocketLocation.clientSearchOrder(explicit: nil, environment: ["PATHD_SOCKET": "/y", "XDG_RUNTIME_DIR": "/r"])
                == ["/y"])
    }

    @Test func systemThenUser() {
        #expect(SocketLocation.clientSearchOrder(explicit: nil, environment: ["PATHD_SOCKET": "", "XDG_RUNTIME_DIR": "/r/"])
                == ["/run/pathd/pathd.sock", "/r/pathd/pathd.sock"])
        #expect(SocketLocation.clientSearchOrder(explicit: nil, environment: [:]) == ["/run/pathd/pathd.sock"])
    }
}
