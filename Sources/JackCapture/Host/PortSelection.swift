/// Which JACK ports a take records: 1-based physical capture channels, or port names and globs.
package enum SourceSelection: Equatable, Sendable {
    /// `--channels 1-8,10`: the server's physical capture ports, by position.
    case channels([Int])
    /// `--port 'synth:out_*'` (repeatable): exact names or globs (`*`, `?`, `[...]`).
    case ports([String])

    /// jcap records channels 1 and 2 when told nothing else.
    package static let `default` = SourceSelection.channels([1, 2])

    /// The source port for each channel of the take, in order.
    ///
    /// - Parameters:
    ///   - physicalCapturePorts: the server's physical capture ports, in the server's order.
    ///   - outputPorts: every output port of the server.
    package func resolve(physicalCapturePorts: [String], outputPorts: [String]) throws(CaptureError) -> [String] {
        switch self {
        case .channels(let channels):
            let ordered = physicalCapturePorts.sorted(by: NaturalOrder.areInIncreasingOrder)
            return try channels.map { (channel) throws(CaptureError) in
                guard channel >= 1, channel <= ordered.count else {
                    throw .noSuchChannel(channel, available: ordered.count)
                }
                return ordered[channel - 1]
            }
        case .ports(let patterns):
            var chosen: [String] = []
            var seen = Set<String>()
            for pattern in patterns {
                let matches = PortPattern.matches(pattern, in: outputPorts)
                guard !matches.isEmpty else { throw .noPortMatches(pattern) }
                for name in matches where seen.insert(name).inserted { chosen.append(name) }
            }
            return chosen
        }
    }

    /// Parses a channel list: `1,2`, `1-8,10`. Channels are 1-based; each may appear once.
    package static func parseChannelList(_ text: String) throws(CaptureError) -> [Int] {
        var channels: [Int] = []
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        for item in items {
            let trimmed = String(item).trimmingWhitespace()
            let bounds = trimmed.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(bounds.count),
                  bounds.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
                throw .badChannelList(text, reason: "'\(trimmed)' is not a channel number or a range like 1-8")
            }
            let first = Int(bounds[0])!, last = Int(bounds[bounds.count - 1])!
            guard first >= 1 else { throw .badChannelList(text, reason: "channels count from 1") }
            guard first <= last else { throw .badChannelList(text, reason: "range '\(trimmed)' runs backwards") }
            for channel in first...last {
                guard !channels.contains(channel) else {
                    throw .badChannelList(text, reason: "channel \(channel) is listed twice")
                }
                channels.append(channel)
            }
        }
        return channels
    }
}

/// JACK port names matched against shell-style globs (fnmatch(3)).
package enum PortPattern {
    /// Whether `pattern` has glob characters; without them it names one port exactly.
    package static func isGlob(_ pattern: String) -> Bool {
        pattern.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    /// The names `pattern` matches, in natural order (`out_2` before `out_10`).
    package static func matches(_ pattern: String, in names: [String]) -> [String] {
        guard isGlob(pattern) else { return names.contains(pattern) ? [pattern] : [] }
        return names.filter { fnmatch(pattern, $0, 0) == 0 }.sorted(by: NaturalOrder.areInIncreasingOrder)
    }
}

/// Orders names the way people number things: runs of digits compare as numbers, so `out_2`
/// comes before `out_10` and `capture_9` before `capture_10`.
package enum NaturalOrder {
    package static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Negative, zero or positive as `lhs` sorts before, with or after `rhs`.
    package static func compare(_ lhs: String, _ rhs: String) -> Int {
        var left = Array(lhs.unicodeScalars)[...], right = Array(rhs.unicodeScalars)[...]
        while let l = left.first, let r = right.first {
            if isDigit(l) && isDigit(r) {
                let leftRun = left.prefix(while: isDigit), rightRun = right.prefix(while: isDigit)
                let leftDigits = leftRun.drop { $0 == "0" }, rightDigits = rightRun.drop { $0 == "0" }
                if leftDigits.count != rightDigits.count { return leftDigits.count - rightDigits.count }
                for (a, b) in zip(leftDigits, rightDigits) where a != b { return a.value < b.value ? -1 : 1 }
                if leftRun.count != rightRun.count { return leftRun.count - rightRun.count }
                left = left.dropFirst(leftRun.count)
                right = right.dropFirst(rightRun.count)
            } else {
                if l != r { return l.value < r.value ? -1 : 1 }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        return left.count - right.count
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }
}
