import Foundation
import JackCapture

/// A message from the page, `{"command": "arm", "track": "Kick In"}`, as the `ControlCommand` it
/// asks for; anything else is refused with the reason, and changes nothing.
enum WebRemoteRequest {
    /// A page's messages are a few dozen bytes; a note is the longest.
    static let largestMessage = 4_096
    static let longestNote = 1_000

    private struct Fields: Decodable {
        var command: String
        var track: String?
        var take: Int?
        var mark: String?
        var text: String?
        var yes: Bool?
    }

    static func command(from text: String) -> Result<ControlCommand, WebRemoteRefusal> {
        guard text.utf8.count <= largestMessage else { return .failure(.tooLarge(bytes: text.utf8.count)) }
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(text.utf8))
        } catch {
            return .failure(.malformed("not a command object ({\"command\": ...})"))
        }
        func track() -> Result<String, WebRemoteRefusal> {
            guard let name = fields.track, !name.isEmpty, name.utf8.count <= 256 else {
                return .failure(.malformed("'\(fields.command)' needs a track name"))
            }
            return .success(name)
        }
        func take() -> Result<Int, WebRemoteRefusal> {
            guard let number = fields.take, number >= 1 else { return .failure(.malformed("'\(fields.command)' needs a take number")) }
            return .success(number)
        }
        switch fields.command {
        case "record": return .success(.record)
        case "pause": return .success(.pause)
        case "resume": return .success(.resume)
        case "togglePause": return .success(.togglePause)
        case "requestStop": return .success(.requestStop)
        case "confirmStop": return .success(.confirmStop(fields.yes ?? false))
        case "discardLastTake": return .success(.discardLastTake)
        case "confirmDiscard": return .success(.confirmDiscard(fields.yes ?? false))
        case "dropMarker": return .success(.dropMarker)
        case "clearClips": return .success(.clearClips)
        case "arm": return track().map { .arm(track: $0) }
        case "disarm": return track().map { .disarm(track: $0) }
        case "mark":
            var mark: TakeMark?
            if let name = fields.mark, !name.isEmpty {
                guard let known = TakeMark(rawValue: name) else {
                    return .failure(.malformed("unknown mark '\(name)' (circled, false-start, no-good)"))
                }
                mark = known
            }
            return take().map { .mark(take: $0, mark) }
        case "note":
            let text = fields.text ?? ""
            guard text.count <= longestNote else { return .failure(.malformed("a note is at most \(longestNote) characters")) }
            return take().map { .note(take: $0, text: text) }
        default:
            return .failure(.malformed("unknown command '\(fields.command.prefix(40))'"))
        }
    }
}

/// Why a message from a page was not taken.
enum WebRemoteRefusal: Error, Equatable, CustomStringConvertible {
    case tooLarge(bytes: Int)
    case malformed(String)
    case notText
    /// The mailbox's queue is full: the core is not keeping up with the page.
    case busy

    var description: String {
        switch self {
        case .tooLarge(let bytes): "a message of \(bytes) bytes (at most \(WebRemoteRequest.largestMessage))"
        case .malformed(let reason): reason
        case .notText: "a binary message (commands are JSON text)"
        case .busy: "too many commands at once"
        }
    }
}
