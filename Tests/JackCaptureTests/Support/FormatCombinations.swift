import CSndfile
import Foundation
import Testing
@testable import JackCapture

/// Every format jcap can write, found by asking `resolveFormat` about the whole cross product of
/// containers, encodings, bit depths and byte orders; tests pin its size so a rule that wrongly
/// refuses (or allows) a combination shows up.
enum FormatCombinations {
    struct Candidate: CustomStringConvertible {
        var container: FileContainer
        var settings: RecordingSettings
        var path: String { "take." + container.rawValue }
        var description: String {
            "\(path) --format \(settings.format?.rawValue ?? "-") --bit-depth \(settings.bitDepth.map(String.init) ?? "-") --endian \(settings.endianness?.rawValue ?? "-")"
        }
    }

    /// Every container × encoding × bit depth (those of any encoding, and none) × byte order (none,
    /// little, big).
    static let candidates: [Candidate] = {
        let depths: [Int?] = [nil] + Set(AudioFormat.allCases.flatMap { $0.bitDepths?.allowed ?? [] }).sorted()
        var result: [Candidate] = []
        for container in FileContainer.allCases {
            for format in AudioFormat.allCases {
                for depth in depths {
                    for order in [nil] + Endianness.allCases.map(Optional.some) {
                        result.append(Candidate(container: container,
                                                settings: RecordingSettings(format: format, bitDepth: depth, endianness: order)))
                    }
                }
            }
        }
        return result
    }()

    /// The distinct formats that resolve, each with one set of settings that gives it.
    static let valid: [(candidate: Candidate, format: FileFormat)] = {
        var result: [(Candidate, FileFormat)] = []
        for candidate in candidates {
            guard let format = try? candidate.settings.resolveFormat(forPath: candidate.path) else { continue }
            if !result.contains(where: { $0.1 == format }) { result.append((candidate, format)) }
        }
        return result
    }()

    /// Channels a round trip uses: several, within the codec's limit.
    static func channels(for format: FileFormat) -> Int { min(3, format.encoding.maximumChannels ?? 3) }
}
