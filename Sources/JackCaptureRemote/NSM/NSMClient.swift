import Glibc

/// jcap's side of the NSM client protocol (the New Session Manager API 1.1.1,
/// docs/src/api/index.adoc in linuxaudio/new-session-manager): the announce, the wait for
/// `/nsm/client/open`, and every message to the manager, all from one OSC port, since the
/// manager tells its clients apart by the address they send from.
///
/// Capabilities: `:switch:` (another `open` while a session is open finishes the take, closes
/// the session and opens the new one, from the same port), `:dirty:` (is_dirty after an arming
/// change, is_clean after a save) and `:message:` (a status line when a take is recorded). Not
/// `:progress:` (opening and saving take milliseconds) or `:optional-gui:` (jcap has none).
public final class NSMClient {
    /// The OSC paths of the API.
    public enum Path {
        public static let announce = "/nsm/server/announce"
        public static let open = "/nsm/client/open"
        public static let save = "/nsm/client/save"
        public static let isDirty = "/nsm/client/is_dirty"
        public static let isClean = "/nsm/client/is_clean"
        public static let message = "/nsm/client/message"
        public static let sessionIsLoaded = "/nsm/client/session_is_loaded"
        public static let reply = "/reply"
        public static let error = "/error"
    }

    public static let apiVersionMajor: Int32 = 1
    public static let apiVersionMinor: Int32 = 1
    /// The application name (also what the manager's client ids start with).
    public static let applicationName = "jcap"
    public static let capabilities = ":switch:dirty:message:"

    /// `NSM_URL` as given.
    public let url: String
    public let manager: OSCAddress
    private let endpoint: OSCEndpoint
    /// The manager's name, from its reply to the announce.
    public private(set) var managerName: String?
    /// Messages that came while waiting for something else, handed out by the next `receive`.
    private var held: [OSCMessage] = []

    /// A client of the manager at `url` (`NSM_URL`); nil when `url` is not an `osc.udp://` URL
    /// (the API: an invalid NSM_URL means no session management).
    public init?(url: String) throws(NSMError) {
        guard let manager = OSCAddress(url: url) else { return nil }
        self.url = url
        self.manager = manager
        do { endpoint = try OSCEndpoint() } catch { throw .cannotListen(error) }
    }

    /// `/nsm/server/announce s:jcap s:capabilities s:executable i:1 i:1 i:pid`, then the manager's
    /// answer: its `/reply` (its name kept), or its `/error`, thrown. Messages that come first
    /// (an eager manager's `open`) are kept for `waitForOpen`.
    ///
    /// - Parameter stop: polled while waiting; true gives up (false returned: a signal came).
    /// - Returns: true once the manager accepted jcap.
    public func announce(executable: String, timeout: Double = 10, stop: () -> Bool) throws(NSMError) -> Bool {
        endpoint.send(Path.announce, [.string(Self.applicationName), .string(Self.capabilities), .string(executable),
                                      .int(Self.apiVersionMajor), .int(Self.apiVersionMinor), .int(Int32(getpid()))],
                      to: manager)
        let deadline = Self.now() + timeout
        while Self.now() < deadline {
            if stop() { return false }
            var answer: OSCMessage?
            for message in endpoint.receive() {
                // What comes with or after the answer (the manager's open) is kept for later.
                if answer == nil, message.path == Path.reply || message.path == Path.error,
                   message.arguments.first??.stringValue == Path.announce {
                    answer = message
                } else {
                    held.append(message)
                }
            }
            guard let answer else {
                usleep(10_000)
                continue
            }
            if answer.path == Path.error {
                let code = answer.arguments.count > 1 ? Int32(answer.arguments[1]?.intValue ?? -1) : -1
                let text = answer.arguments.count > 2 ? answer.arguments[2]?.stringValue ?? "" : ""
                throw .announceRefused(code: code, message: text)
            }
            managerName = answer.arguments.count > 2 ? answer.arguments[2]?.stringValue : nil
            return true
        }
        throw .noReply(url: url, seconds: timeout)
    }

    /// Waits for `/nsm/client/open` (the manager sends it right after its reply to the
    /// announce); nil when `stop` said so first (SIGTERM before a session: nothing to finish).
    public func waitForOpen(stop: () -> Bool) -> NSMOpenRequest? {
        while !stop() {
            let messages = receive()
            for (index, message) in messages.enumerated() {
                if let request = NSMOpenRequest(message) {
                    held = Array(messages[(index + 1)...])
                    return request
                }
                answerOutOfPlace(message)
            }
            usleep(10_000)
        }
        return nil
    }

    /// Messages from the manager since the last call, without blocking.
    public func receive() -> [OSCMessage] {
        let earlier = held
        held = []
        return earlier + endpoint.receive()
    }

    /// `/reply s:path s:message`: `path` done.
    public func reply(to path: String, _ message: String) {
        endpoint.send(Path.reply, [.string(path), .string(message)], to: manager)
    }

    /// `/error s:path i:code s:message`: `path` failed.
    public func fail(_ path: String, _ code: NSMErrorCode, _ message: String) {
        endpoint.send(Path.error, [.string(path), .int(code.rawValue), .string(message)], to: manager)
    }

    /// `/nsm/client/is_dirty` or `/nsm/client/is_clean`.
    public func tellDirty(_ dirty: Bool) {
        endpoint.send(dirty ? Path.isDirty : Path.isClean, [], to: manager)
    }

    /// `/nsm/client/message i:priority s:message`, priority 0 (chatter) to 3 (most important).
    public func tell(_ message: String, priority: Int32 = 1) {
        endpoint.send(Path.message, [.int(min(max(priority, 0), 3)), .string(message)], to: manager)
    }

    /// What to do with a message that is not the one waited for: a save before any session is
    /// open gets ERR_NO_SESSION_OPEN; informational messages need no answer; anything else is
    /// ignored, as nsmd ignores what it does not know.
    func answerOutOfPlace(_ message: OSCMessage) {
        if message.path == Path.save { fail(Path.save, .noSessionOpen, "jcap has no session open yet") }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
