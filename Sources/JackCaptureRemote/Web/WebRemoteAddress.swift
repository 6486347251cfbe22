/// Where the browser remote listens: `--remote [ADDRESS:]PORT` or the session file's `[remote]`.
/// The address is 127.0.0.1 unless given: only this machine reaches it.
public struct WebRemoteAddress: Equatable, Sendable, CustomStringConvertible {
    public static let defaultHost = "127.0.0.1"

    public var host: String
    /// 0: any free port (the one taken is printed).
    public var port: Int

    public init(host: String = Self.defaultHost, port: Int) {
        self.host = host
        self.port = port
    }

    /// `8080`, `0.0.0.0:8080`, `192.168.1.20:8080`, `[::]:8080`.
    public init(parsing text: String) throws(WebRemoteError) {
        var host = Self.defaultHost
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .badAddress(text, reason: "an IPv6 address goes in brackets before the port: [::1]:8080")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }) else {
            throw .badAddress(text, reason: "expected [ADDRESS:]PORT, say 8080 or 0.0.0.0:8080")
        }
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw .badAddress(text, reason: "the port must be a number from 1 to 65535 (0: any free port)")
        }
        self.host = host
        self.port = port
    }

    /// Only this machine can reach it.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// For a URL: an IPv6 address in brackets; 0.0.0.0 and :: as this machine's name is unknown here.
    public var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    public var description: String { "\(urlHost):\(port)" }
}
