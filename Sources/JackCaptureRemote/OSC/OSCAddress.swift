import CLiblo
import Glibc

/// A UDP peer: host and port, as liblo spells them.
public struct OSCAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: String

    public init(host: String, port: String) {
        self.host = host
        self.port = port
    }

    /// From an `osc.udp://host:port/` URL (NSM_URL); nil if it is not one.
    public init?(url: String) {
        guard url.hasPrefix("osc.udp://"),
              let host = lo_url_get_hostname(url), let port = lo_url_get_port(url) else { return nil }
        defer { free(host); free(port) }
        let hostText = String(cString: host), portText = String(cString: port)
        guard !hostText.isEmpty, !portText.isEmpty else { return nil }
        self.init(host: hostText, port: portText)
    }

    public var description: String { "\(host):\(port)" }
}
