import Foundation
import JackCapture

/// The browser remote (`jcap session --remote`): a surface like the keys, whose commands come from
/// pages through a `ControlMailbox` and whose server runs on threads of its own. The run loop's
/// poll hands the mailbox's commands to the core and publishes its state; what the server
/// refused is told through `tell` (the console), a few lines at a time.
public final class WebRemote: ControlSurface {
    public let address: WebRemoteAddress
    public let token: WebRemoteToken
    /// The port listened on, once started (the one taken when asked for port 0).
    public private(set) var port: Int?
    private let mailbox = ControlMailbox()
    private let notices = WebRemoteNotices()
    private let server: WebRemoteServer
    private let tell: (String) -> Void

    /// A remote for the session whose take log is `takeLog`. Nothing listens before `start()`.
    public init(address: WebRemoteAddress, token: WebRemoteToken, takeLog: TakeLog,
                tell: @escaping (String) -> Void) throws(WebRemoteError) {
        self.address = address
        self.token = token
        self.tell = tell
        server = WebRemoteServer(address: address, token: token, mailbox: mailbox, takeLog: takeLog,
                                 page: try WebRemotePage.load(), notices: notices)
    }

    /// Listens; the URL to open, token and all.
    @discardableResult
    public func start() throws(WebRemoteError) -> String {
        let port = try server.start()
        self.port = port
        return url
    }

    /// `http://HOST:PORT/?token=...`; for a remote on every address (0.0.0.0, ::), the host is
    /// this machine's name, which a phone on the network may know it by.
    public var url: String {
        var host = address.urlHost
        if address.host == "0.0.0.0" || address.host == "::" { host = Self.hostName() ?? host }
        return "http://\(host):\(port ?? address.port)/?token=\(token.value)"
    }

    public func stop() { server.stop() }

    /// How many requests and messages were refused so far.
    public var refusedCount: Int { notices.refusedCount }

    package func poll(_ core: ControlCore) {
        mailbox.poll(core)
        for line in notices.takeLines() { tell("remote: " + line) }
    }

    package func observe(_ events: [ControlEvent]) {
        mailbox.observe(events)
    }

    private static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(cString: buffer)
        return name.isEmpty ? nil : name
    }
}
