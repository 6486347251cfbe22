import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import JackCapture
import Logging
import NIOCore
import Synchronization

/// The browser remote's HTTP and WebSocket server (Hummingbird on SwiftNIO's own threads): the
/// page, a WebSocket per page that carries the state out and commands in (through the
/// `ControlMailbox`, never touching the core), and the session's take files by the take list.
///
/// Every request needs the token: in the URL's `token` parameter, or in the cookie the page's
/// first load sets. The cookie is why the printed URL is the only place the token must be typed
/// or scanned: the page's own requests (its script, its WebSocket, downloads) carry it without
/// the script handling it, and `SameSite=Strict` keeps another site's page from sending it.
final class WebRemoteServer: Sendable {
    let address: WebRemoteAddress
    let token: WebRemoteToken
    let mailbox: ControlMailbox
    let feed: WebRemoteFeed
    let notices: WebRemoteNotices
    let page: WebRemotePage
    let takeLog: TakeLog

    static let cookieName = "jcap_remote"
    /// How often a page is sent what changed: more often than the mailbox publishes (25 times a
    /// second), so every state reaches every page within 30 ms.
    static let sendInterval = Duration.milliseconds(30)
    /// Frames above this close the WebSocket (the framework's own limit); messages above
    /// `WebRemoteRequest.largestMessage` are refused one by one.
    static let largestFrame = 1 << 16
    static let mostConnections = 64

    private let task = Locked<Task<Void, Never>?>(nil)
    /// Set by `stop()`: every page's sender says goodbye, so the server need not wait for pages.
    private let closing = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)

    init(address: WebRemoteAddress, token: WebRemoteToken, mailbox: ControlMailbox, takeLog: TakeLog, page: WebRemotePage,
         notices: WebRemoteNotices) {
        self.address = address
        self.token = token
        self.mailbox = mailbox
        self.takeLog = takeLog
        self.page = page
        self.notices = notices
        feed = WebRemoteFeed(mailbox: mailbox, takeLog: takeLog, notices: notices)
    }

    // MARK: Running

    /// Listens, and returns the port once it does (the one taken, for port 0).
    func start(timeout: TimeInterval = 10) throws(WebRemoteError) -> Int {
        let outcome = Locked<Result<Int, WebRemoteError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let address = self.address
        // A page that does not answer a close within a second is not waited for.
        let webSocket = WebSocketServerConfiguration(maxFrameSize: Self.largestFrame, closeTimeout: .seconds(1), validateUTF8: true)
        let app = Application(
            responder: CallbackResponder { [self] request, context in await respond(to: request, context: context) },
            server: .http1WebSocketUpgrade(configuration: .init(ws: webSocket)) { [self] head, _, _ in upgrade(head) },
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "jcap",
                                 availableConnectionsDelegate: MaximumAvailableConnections(Self.mostConnections)),
            onServerRunning: { channel in
                outcome.withLock { if $0 == nil { $0 = .success(channel.localAddress?.port ?? address.port) } }
                ready.signal()
            },
            logger: Logger(label: "jcap.remote") { _ in SwiftLogNoOpLogHandler() }
        )
        let ended = self.ended
        let running = Task.detached {
            do {
                // jcap handles its signals itself (a take is finished first).
                try await app.runService(gracefulShutdownSignals: [])
            } catch {
                let reason = Self.reason(error)
                outcome.withLock { if $0 == nil { $0 = .failure(.cannotListen(address, reason: reason)) } }
                ready.signal()
            }
            ended.signal()
        }
        task.withLock { $0 = running }
        if ready.wait(timeout: .now() + timeout) == .timedOut {
            stop()
            throw .cannotListen(address, reason: "no answer from the server in \(Int(timeout)) s")
        }
        switch outcome.withLock({ $0 }) {
        case .success(let port)?: return port
        case .failure(let error)?:
            throw error
        case nil: throw .cannotListen(address, reason: "the server stopped")
        }
    }

    /// Closes the server (and its WebSockets), waiting a moment for it.
    func stop() {
        guard let running = task.withLock({ task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }) else { return }
        closing.store(true, ordering: .relaxed)
        running.cancel()
        _ = ended.wait(timeout: .now() + 2)
    }

    /// `Address already in use`, not NIO's whole error.
    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)).lowercased() }
        return "\(error)"
    }

    // MARK: Who may ask

    enum Access: Equatable {
        case allowed
        case noToken
        case wrongToken
    }

    /// The token from the URL's `token`, or else from the cookie.
    func access(_ head: HTTPRequest) -> Access {
        let uri = URI(head.path ?? "/")
        if let given = uri.queryParameters["token"] { return token.matches(String(given)) ? .allowed : .wrongToken }
        let cookies = head.headerFields[values: .cookie].flatMap { $0.split(separator: ";") }
        for cookie in cookies {
            let parts = cookie.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == Self.cookieName {
                return token.matches(parts[1].trimmingCharacters(in: .whitespaces)) ? .allowed : .wrongToken
            }
        }
        return .noToken
    }

    /// A WebSocket's page must come from this server: its Origin names the host it asked for.
    /// (A page elsewhere could otherwise open one with the cookie of a browser that has it.)
    static func originMatches(_ head: HTTPRequest) -> Bool {
        guard let origin = head.headerFields[.origin], let url = URL(string: origin), let host = url.host,
              let authority = head.authority else { return false }
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else { return false }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        let asked = authority.lowercased()
        let port = url.port ?? defaultPort
        return asked == "\(bracketed.lowercased()):\(port)" || (url.port == nil && asked == bracketed.lowercased())
    }

    /// A handshake refused here is answered 400 by the framework (a refused upgrade has no say in
    /// its answer), and told on the console.
    private func upgrade(_ head: HTTPRequest) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let path = URI(head.path ?? "/").path
        let refusal: String? = switch access(head) {
        case .noToken: "no token"
        case .wrongToken: "a wrong token"
        case .allowed: path != "/ws" ? "no WebSocket there" : Self.originMatches(head) ? nil : "from another origin"
        }
        if let refusal {
            notices.refuse("refused a WebSocket for \(path.prefix(80)): \(refusal)")
            return .dontUpgrade
        }
        return .upgrade([:]) { [self] inbound, outbound, _ in
            await serve(inbound: inbound, outbound: outbound)
        }
    }

    // MARK: HTTP

    private func respond(to request: Request, context: BasicRequestContext) async -> Response {
        let path = request.uri.path
        let shown = String(path.prefix(80))
        switch access(request.head) {
        case .allowed: break
        case .noToken:
            notices.refuse("refused a request for \(shown): no token")
            return Self.text(.unauthorized, "jcap: this remote needs its token: open the URL jcap printed\n")
        case .wrongToken:
            notices.refuse("refused a request for \(shown): a wrong token")
            return Self.text(.forbidden, "jcap: a wrong token\n")
        }
        guard request.method == .get || request.method == .head else {
            notices.refuse("refused a \(request.method) request for \(shown)")
            return Self.text(.methodNotAllowed, "jcap: only GET\n")
        }
        if path == "/ws" {
            let reason = Self.originMatches(request.head) ? "not a WebSocket request" : "a WebSocket from another origin"
            notices.refuse("refused a request for /ws: \(reason)")
            return Self.text(.forbidden, "jcap: \(reason)\n")
        }
        if let file = page.files[path] {
            var response = Response(status: .ok, headers: Self.pageHeaders(contentType: file.contentType),
                                    body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
            if path == "/" {
                response.setCookie(Cookie(name: Self.cookieName, value: token.value, path: "/", httpOnly: true, sameSite: .strict))
            }
            return response
        }
        if path.hasPrefix("/takes/") { return await takeFile(path, context: context) }
        notices.refuse("refused a request for \(shown): no such page")
        return Self.text(.notFound, "jcap: no such page\n")
    }

    /// `/takes/TAKE/INDEX`: file INDEX of take TAKE, as the take log names it. Nothing from the
    /// URL is ever a path: the numbers pick an entry of the log, whose paths are relative to the
    /// session folder and without `..` (checked again here).
    private func takeFile(_ path: String, context: BasicRequestContext) async -> Response {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, let take = Int(parts[2]), let index = Int(parts[3]),
              let entries = try? takeLog.entries(),
              let entry = entries.last(where: { $0.take == take && !$0.status.isRemoved }),
              entry.files.indices.contains(index) else {
            notices.refuse("refused a request for \(path.prefix(80)): no such take file")
            return Self.text(.notFound, "jcap: no such take file\n")
        }
        let relative = entry.files[index].path
        let components = relative.split(separator: "/")
        guard !relative.hasPrefix("/"), !components.contains(".."), !components.isEmpty else {
            return Self.text(.notFound, "jcap: no such take file\n")
        }
        do {
            let body = try await FileIO().loadFile(path: takeLog.folder + "/" + relative, context: context)
            let name = String(components.last ?? "take").replacingOccurrences(of: "\"", with: "_")
            var headers = HTTPFields()
            headers[.contentType] = "application/octet-stream"
            headers[.contentDisposition] = "attachment; filename=\"\(name)\""
            return Response(status: .ok, headers: headers, body: body)
        } catch {
            return Self.text(.notFound, "jcap: the take file is gone\n")
        }
    }

    static func pageHeaders(contentType: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        // The first URL carries the token: no page it links to learns it.
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return headers
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: WebSocket

    /// One page: what changed goes out every `sendInterval`, commands come in. A page that does not
    /// read holds up only its own sender, which then skips to the latest state: nothing queues.
    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let replies = WebRemoteReplies()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                try? await send(to: outbound, replies: replies)
            }
            do {
                for try await message in inbound.messages(maxSize: Self.largestFrame) {
                    receive(message, replies: replies)
                }
            } catch is IOError {
                // The page went away (a phone asleep, a closed tab): nothing refused.
            } catch is ChannelError {
            } catch {
                notices.refuse("closed a WebSocket: \(error)")
            }
            group.cancelAll()
        }
    }

    private func receive(_ message: WebSocketMessage, replies: WebRemoteReplies) {
        let refusal: WebRemoteRefusal
        switch message {
        case .text(let text):
            switch WebRemoteRequest.command(from: text) {
            case .success(let command):
                if mailbox.post(command) { return }
                refusal = .busy
            case .failure(let reason):
                refusal = reason
            }
        case .binary:
            refusal = .notText
        }
        notices.refuse("refused a message: \(refusal)")
        replies.add(refusal.description)
    }

    private func send(to outbound: WebSocketOutboundWriter, replies: WebRemoteReplies) async throws {
        var stateRevision: UInt64 = 0
        var takesRevision: UInt64 = 0
        var eventSequence = mailbox.lastEventSequence
        var refusalSequence: UInt64 = 0
        let clock = ContinuousClock()
        var next = clock.now
        while !Task.isCancelled {
            if closing.load(ordering: .relaxed) {
                try await outbound.close(.goingAway, reason: "jcap quit")
                return
            }
            if let state = feed.state(), state.revision != stateRevision {
                try await outbound.write(.text(state.text))
                stateRevision = state.revision
            }
            if let takes = feed.takes(), takes.revision != takesRevision {
                try await outbound.write(.text(takes.text))
                takesRevision = takes.revision
            }
            let events = feed.events(after: eventSequence)
            eventSequence = events.last
            if let text = events.text { try await outbound.write(.text(text)) }
            let refused = replies.take()
            if !refused.isEmpty {
                let told = refused.map { line -> WebRemoteMessages.Event in
                    refusalSequence += 1
                    return WebRemoteMessages.Event(sequence: refusalSequence, kind: "refused", text: "Refused: " + line)
                }
                try await outbound.write(.text(WebRemoteFeed.json(WebRemoteMessages.Events(events: told))))
            }
            // On a fixed schedule, whatever the sending took; a sender that fell behind (a page
            // that reads slowly) skips ahead rather than sending in bursts.
            next = next.advanced(by: Self.sendInterval)
            if next < clock.now { next = clock.now }
            try await Task.sleep(until: next, clock: clock)
        }
    }
}
