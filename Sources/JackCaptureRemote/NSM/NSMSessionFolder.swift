import Foundation
import JackCapture

/// The session a manager's `open` asks for: its path is the session's folder, holding the
/// session file (`session.toml`), the take files and the take log; the client id is the JACK
/// client name. Following the API's "use the path as a directory" strategy, every file of the
/// client is under the path, so the manager can copy, rename or delete it whole.
public struct NSMSessionFolder: Sendable {
    /// The session file's name in the folder, always the same (the API's best practice).
    public static let fileName = "session.toml"

    /// The session when no template is given: two tracks, "In 1" and "In 2", on the server's
    /// first two physical capture channels, as `jcap` alone records them.
    public static func defaultText(name: String) -> String {
        """
        [session]
        name = \(SessionFileWriter.quoted(name))
        folder = "."

        [[track]]
        name = "In 1"
        source = 1

        [[track]]
        name = "In 2"
        source = 2

        """
    }

    public let request: NSMOpenRequest

    public init(_ request: NSMOpenRequest) {
        self.request = request
    }

    /// The folder without a trailing slash.
    public var folder: String {
        var folder = request.path
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        return folder
    }

    /// `folder/session.toml`.
    public var filePath: String { folder + "/" + Self.fileName }

    /// The session to open: the folder's own session file when it has one (the API: an existing
    /// project is opened at once), else a new one made from `template` (a session file's path,
    /// or the default session when nil) and written to the folder, recording into the folder.
    /// Either way named after the client id, so its JACK client name is the one the manager gave.
    ///
    /// - Throws: `.openFailed` with the API's code: ERR_BAD_PROJECT for a session file that does
    ///   not load, ERR_CREATE_FAILED for a template that does not or a folder that cannot be made.
    public func definition(template: String?) throws(NSMError) -> SessionDefinition {
        let manager = FileManager.default
        if manager.fileExists(atPath: filePath) {
            let existing: SessionDefinition
            do { existing = try SessionDefinition.load(path: filePath) } catch {
                throw .openFailed(.badProject, error.description)
            }
            return try named(inFolder(existing))
        }
        var made: SessionDefinition
        do {
            if let template {
                made = try SessionDefinition.load(path: template)
            } else {
                made = try SessionDefinition.parse(Self.defaultText(name: request.clientID), path: filePath)
            }
        } catch {
            throw .openFailed(.createFailed, error.description)
        }
        made.name = request.clientID
        made.folder = folder
        do {
            try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .openFailed(.createFailed, "cannot create the session folder \(folder): \(error.localizedDescription)")
        }
        do { try SessionFileWriter.write(made, to: filePath) } catch {
            throw .openFailed(.createFailed, error.description)
        }
        do { return inFolder(try SessionDefinition.load(path: filePath)) } catch {
            throw .openFailed(.createFailed, error.description)
        }
    }

    /// `folder = "."` reads as `<folder>/.`: the same folder, named plainly for messages.
    private func inFolder(_ definition: SessionDefinition) -> SessionDefinition {
        var named = definition
        if named.folder == folder + "/." { named.folder = folder }
        return named
    }

    /// `definition` under the client id's name, read again from its text so that everything
    /// made from the name (the tracks' JACK port names) follows; the file gets the name at the
    /// next save.
    private func named(_ definition: SessionDefinition) throws(NSMError) -> SessionDefinition {
        guard definition.name != request.clientID else { return definition }
        var renamed = definition
        renamed.name = request.clientID
        do {
            return try SessionDefinition.parse(SessionFileWriter.text(of: renamed, path: filePath), path: filePath)
        } catch {
            throw .openFailed(.badProject, error.description)
        }
    }

    /// Writes the open session's file: its definition with every track's arm state now.
    public static func save(_ session: StudioSession, to path: String) throws(SessionFileError) {
        let armed = Set(session.armedTrackNames)
        let states = session.trackNames.map { armed.contains($0) }
        guard states.contains(true) else {
            throw SessionFileError(path: path, message: "no track is armed: arm one before saving (a session file needs one)")
        }
        try SessionFileWriter.write(session.definition, armed: states, to: path)
    }
}
