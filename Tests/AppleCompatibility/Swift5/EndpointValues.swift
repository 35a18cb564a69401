// SPDX-License-Identifier: Apache-2.0
// Pattern: NWEndpoint values in configuration code: hosts from string literals and
// text, ports from literals, raw values and text, and a switch over the cases.
import Foundation
import Network

struct ServerEndpoints {
    let primary: NWEndpoint = .hostPort(host: "api.example.com", port: .https)
    let fallback = NWEndpoint.hostPort(host: .ipv4(.loopback), port: 8080)
    let metrics = NWEndpoint.hostPort(host: NWEndpoint.Host("2001:db8::10"), port: NWEndpoint.Port(rawValue: 9100)!)
    let socket = NWEndpoint.unix(path: "/var/run/example.sock")
    let service = NWEndpoint.service(name: "Printer", type: "_ipp._tcp", domain: "local.", interface: nil)

    func port(from text: String) -> NWEndpoint.Port {
        NWEndpoint.Port(text) ?? .http
    }

    func describe(_ endpoint: NWEndpoint) -> String {
        switch endpoint {
        case .hostPort(let host, let port):
            return "host \(host) port \(port.rawValue)"
        case .service(let name, let type, let domain, _):
            return "service \(name) \(type) \(domain)"
        case .unix(let path):
            return "unix socket \(path)"
        case .url(let url):
            return "url \(url.absoluteString)"
        @unknown default:
            return endpoint.debugDescription
        }
    }

    var all: [NWEndpoint] { [primary, fallback, metrics, socket, service] }
}

func isLoopback(_ host: NWEndpoint.Host) -> Bool {
    switch host {
    case .ipv4(let address): return address.isLoopback || address == IPv4Address.loopback
    case .ipv6(let address): return address.isLoopback || address == IPv6Address.loopback
    case .name(let name, _): return name == "localhost"
    @unknown default: return false
    }
}
