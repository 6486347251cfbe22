import Foundation
@testable import JackCapture
import JackCaptureTestSignal

/// What jcap said on its console about a take's frames: the spans it wrote as silence (its
/// summary's `written as silence at ... positions:` line) and the periods it copied late.
struct JcapConsoleReport {
    var lostSpans: [LostSpan] = []
    var lateCopies: [LostSpan] = []

    init(_ errors: String) {
        for line in errors.split(separator: "\n").map(String.init) {
            if let range = line.range(of: "written as silence at file positions: ")
                ?? line.range(of: "lost frames written as silence at take positions: ") {
                for span in line[range.upperBound...].split(separator: ";") {
                    let numbers = span.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
                    if numbers.count >= 2 { lostSpans.append(LostSpan(position: numbers[1], frames: numbers[0])) }
                }
            }
            if let range = line.range(of: "late callback: the ") {
                let numbers = line[range.upperBound...].split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
                if numbers.count >= 2 { lateCopies.append(LostSpan(position: numbers[1], frames: numbers[0])) }
            }
        }
    }

    /// Whether file frame `frame` is inside a period jcap said it copied late.
    func isLate(_ frame: Int64) -> Bool {
        lateCopies.contains { frame >= $0.position && frame < $0.position + $0.frames }
    }

    /// Checks a recording of the test signal against this report: the file's silence is exactly
    /// the reported lost spans, everything else is the signal in one run at its true position
    /// (wrong samples only inside periods reported late). Returns what is wrong, nil if nothing.
    func disagreement(with signal: TestSignalReport) -> String? {
        if signal.silentSpans != lostSpans {
            return "silence in the file \(signal.silentSpans) is not the reported lost spans \(lostSpans)"
        }
        if signal.segments.count != 1 { return "the signal shifts: segments \(signal.segments)" }
        if signal.wrongSamples > 0 && (lateCopies.isEmpty || !signal.firstWrong.allSatisfy({ isLate($0.frame) })) {
            return "\(signal.wrongSamples) wrong samples outside reported late periods: \(signal.firstWrong)"
        }
        return nil
    }
}
