import JackCapture

/// The session manager as a control surface, once the session is open: `/nsm/client/save`
/// writes the session file (arm states, names, sources, groups) and replies; an arming change
/// makes the session dirty (`is_dirty`), a save clean (`is_clean`); a recorded take is told as
/// a status message; another `/nsm/client/open` (`:switch:`) quits this session, finishing its
/// take, and is kept in `switchRequest` for jcap to open next. Quitting is SIGTERM, which
/// `SignalSurface` turns into a quit that finishes the take, as the API asks. Takes themselves
/// come from the other surfaces.
public final class NSMSurface: ControlSurface {
    private let client: NSMClient
    private let session: StudioSession
    private let folder: NSMSessionFolder
    private var isDirty = false
    /// The session the manager switched to, once it asked: this one is quitting.
    public private(set) var switchRequest: NSMOpenRequest?

    public init(client: NSMClient, session: StudioSession, folder: NSMSessionFolder) {
        self.client = client
        self.session = session
        self.folder = folder
    }

    public func poll(_ core: ControlCore) {
        for message in client.receive() {
            switch message.path {
            case NSMClient.Path.save: save()
            case NSMClient.Path.open:
                guard let request = NSMOpenRequest(message) else { break }
                if switchRequest == nil { core.apply(.quit) }
                // The last one asked wins; its reply comes once it is open.
                switchRequest = request
            default: break
            }
        }
    }

    public func observe(_ events: [ControlEvent]) {
        for event in events {
            switch event {
            case .trackArmed:
                if !isDirty {
                    isDirty = true
                    client.tellDirty(true)
                }
            case .sessionTakeFinished(_, let entries):
                for entry in entries { client.tell("take \(entry.take) recorded (\(entry.status.rawValue))") }
            default: break
            }
        }
    }

    private func save() {
        do {
            try NSMSessionFolder.save(session, to: folder.filePath)
        } catch {
            client.fail(NSMClient.Path.save, .general, error.description)
            return
        }
        client.reply(to: NSMClient.Path.save, "saved \(NSMSessionFolder.fileName)")
        isDirty = false
        client.tellDirty(false)
    }
}
