import JackCapture

/// Draws a `MeterSnapshot` as lines of text for a terminal of a given size.
///
/// One bar per channel on a -60 to 0 dBFS scale: solid up to the average (RMS) level, shaded up
/// to the peak, a `|` at the peak held for 2 s, then the peak in dB and a latched CLIP. Cells are
/// green below -18 dBFS (the EBU alignment level), yellow to -6, red above. When the channels do
/// not fit the terminal's height one per line, they fold into compact columns.
struct MeterScreen {
    enum Layout: Equatable {
        /// Bars when they fit the height, compact columns otherwise.
        case automatic
        case bars
        case compact
    }

    var width: Int
    var height: Int
    var layout: Layout = .automatic
    /// ANSI colours; without, the same text, plain.
    var colors = false

    static let lowestDecibels: Float = -60
    static let yellowFrom: Float = -18
    static let redFrom: Float = -6

    func render(_ snapshot: MeterSnapshot) -> [String] {
        let header = headerLines(snapshot)
        let roomForBars = height - header.count - 1
        let useBars = layout == .bars || (layout == .automatic && snapshot.channels.count <= roomForBars)
        if useBars {
            return header + barLines(snapshot.channels)
        }
        if layout == .automatic, let columns = barColumns(snapshot.channels.count, rows: roomForBars) {
            return header + barColumnLines(snapshot.channels, columns: columns)
        }
        return header + compactLines(snapshot.channels, rows: max(1, height - header.count))
    }

    /// Bars narrower than this fold into compact columns instead.
    static let shortestColumnBar = 20

    /// How many columns of bars `count` channels take in `rows` rows, if their bars are still
    /// `shortestColumnBar` cells or longer: a wide terminal shows 64 tracks as two columns of
    /// long bars rather than many columns of short ones.
    func barColumns(_ count: Int, rows: Int) -> Int? {
        guard rows > 0, count > 0 else { return nil }
        let columns = (count + rows - 1) / rows
        guard columns > 1 else { return nil }
        // Number and mark, a name of 6 or more, " [", "]", the level and CLIP.
        let columnWidth = (width - 2 * (columns - 1)) / columns
        return columnWidth - 4 - 6 - 3 - 11 >= Self.shortestColumnBar ? columns : nil
    }

    /// The channels in `columns` columns of bars, filled down then across, each with its scale.
    func barColumnLines(_ channels: [MeterSnapshot.Channel], columns: Int) -> [String] {
        let perColumn = (channels.count + columns - 1) / columns
        let columnWidth = (width - 2 * (columns - 1)) / columns
        var narrow = self
        narrow.width = columnWidth
        let blocks = stride(from: 0, to: channels.count, by: perColumn).map {
            narrow.barLines(Array(channels[$0..<min($0 + perColumn, channels.count)]))
        }
        return (0...perColumn).map { row in
            blocks.enumerated().map { index, block in
                let text = row < block.count ? block[row] : ""
                let pad = index == blocks.count - 1 ? 0 : max(0, columnWidth - visibleWidth(text))
                return text + String(repeating: " ", count: pad)
            }.joined(separator: "  ").replacingTrailingSpaces()
        }
    }

    // MARK: Header

    func headerLines(_ snapshot: MeterSnapshot) -> [String] {
        var parts: [String] = snapshot.title.map { [$0] } ?? []
        let rate = snapshot.sampleRate
        switch snapshot.state {
        case .ready:
            parts.append(paint("□ READY", .yellow))
        case .waitingForPorts:
            parts.append(paint("◌ WAITING for the ports to be connected", .yellow))
        case .countdown(let frames):
            parts.append(paint("◌ STARTS IN \(clockText(frames: frames, sampleRate: rate))", .yellow))
        case .recording:
            parts.append(paint("● REC", .red) + " \(clockText(frames: snapshot.elapsedFrames, sampleRate: rate))")
            parts.append("\(snapshot.elapsedFrames) frames")
        case .playing:
            parts.append(paint("▶ PLAY", .green) + " \(clockText(frames: snapshot.elapsedFrames, sampleRate: rate))")
            parts.append("\(snapshot.elapsedFrames) frames")
        case .paused:
            parts.append(paint("‖ PAUSED", .yellow) + " \(clockText(frames: snapshot.elapsedFrames, sampleRate: rate))")
            parts.append("\(snapshot.elapsedFrames) frames")
        case .finished:
            parts.append("■ DONE \(clockText(frames: snapshot.elapsedFrames, sampleRate: rate))")
            parts.append("\(snapshot.elapsedFrames) frames")
        }
        if let question = snapshot.question { parts.append(paint(question, .clip)) }
        if let remaining = snapshot.remainingFrames, snapshot.state == .recording || snapshot.state == .playing || snapshot.state == .paused {
            parts.append("left \(clockText(frames: remaining, sampleRate: rate))")
        }
        parts.append("buffer \(Int((snapshot.bufferFill * 100).rounded()))%")
        parts.append(snapshot.xruns > 0 ? paint("xruns \(snapshot.xruns)", .red) : "xruns 0")
        parts.append(snapshot.lostFrames > 0 ? paint("lost \(snapshot.lostFrames)", .red) : "lost 0")
        var lines: [String] = []
        var current = ""
        var currentWidth = 0
        for part in parts {
            let partWidth = visibleWidth(part)
            if currentWidth > 0 && currentWidth + 2 + partWidth > width {
                lines.append(current)
                current = ""
                currentWidth = 0
            }
            if currentWidth > 0 {
                current += "  "
                currentWidth += 2
            }
            current += part
            currentWidth += partWidth
        }
        lines.append(current)
        return lines
    }

    // MARK: Bars

    func barLines(_ channels: [MeterSnapshot.Channel]) -> [String] {
        let longest = channels.map(\.name.count).max() ?? 0
        let labels = labelWidth(channels)
        let nameWidth = min(longest, max(6, width / 4))
        let tailWidth = 11  // " -12.3 CLIP"
        let barWidth = max(8, width - labels - nameWidth - 1 - 2 - tailWidth)
        let scale = String(repeating: " ", count: labels + nameWidth + 2) + scaleLine(width: barWidth)
        return [scale] + channels.map { channel in
            dimmedUnlessArmed(channel, prefix(channel, labels) + fit(channel.name, nameWidth) + " ["
                + bar(channel.reading, width: barWidth, colored: channel.armed) + "]"
                + " " + decibelText(channel.reading.peakPower, width: 5)
                + (channel.isClipped ? " " + paint("CLIP", .clip) : channel.dead != nil ? " " + paint("DEAD", .red) : ""))
        }
    }

    /// Columns a track's number and armed mark take: `12● ` (none for a recording's channels).
    func labelWidth(_ channels: [MeterSnapshot.Channel]) -> Int {
        let widest = channels.compactMap(\.label?.count).max()
        return widest.map { $0 + 2 } ?? 0
    }

    /// A track's number, right-aligned, then ● armed or ○ disarmed.
    func prefix(_ channel: MeterSnapshot.Channel, _ width: Int) -> String {
        guard let label = channel.label, width > 0 else { return "" }
        return String(repeating: " ", count: max(0, width - 2 - label.count)) + label + (channel.armed ? "●" : "○") + " "
    }

    /// A disarmed track's line, dim (it records nothing; its meter still runs).
    func dimmedUnlessArmed(_ channel: MeterSnapshot.Channel, _ line: String) -> String {
        channel.armed || !colors ? line : Zone.empty.escape + line + Zone.reset
    }

    /// dB labels over the bar: every 10 dB, or every 20 where the bar is narrow.
    func scaleLine(width: Int) -> String {
        var cells = [Character](repeating: " ", count: width + 2)
        let step: Float = width >= 30 ? 10 : 20
        var label = Self.lowestDecibels
        var lastEnd = -1
        while label <= 0 {
            let text = Array(label == 0 ? "0" : String(Int(label)))
            let column = cell(for: label, width: width)
            let start = min(max(0, column - text.count / 2), cells.count - text.count)
            if start > lastEnd {
                for (index, character) in text.enumerated() { cells[start + index] = character }
                lastEnd = start + text.count
            }
            label += step
        }
        return String(cells).replacingTrailingSpaces()
    }

    /// The cell a level falls in, 0 to width (width: full scale and beyond).
    func cell(for decibels: Float, width: Int) -> Int {
        let fraction = (decibels - Self.lowestDecibels) / -Self.lowestDecibels
        return Int((min(max(fraction, 0), 1) * Float(width)).rounded())
    }

    func bar(_ reading: MeterReading, width: Int, colored: Bool = true) -> String {
        let colors = colors && colored
        let average = cell(for: reading.averagePower, width: width)
        let peak = max(average, cell(for: reading.peakPower, width: width))
        let hold = reading.peakHold > Self.lowestDecibels ? min(width - 1, cell(for: reading.peakHold, width: width)) : -1
        var text = ""
        var zone: Zone?
        for index in 0..<width {
            let character: Character
            let cellZone: Zone
            if index < average {
                character = "█"
                cellZone = zoneOfCell(index, width: width)
            } else if index < peak {
                character = "▓"
                cellZone = zoneOfCell(index, width: width)
            } else if index == hold && hold >= peak - 1 {
                character = "|"
                cellZone = zoneOfCell(index, width: width)
            } else {
                character = "·"
                cellZone = .empty
            }
            if colors && cellZone != zone {
                text += cellZone.escape
                zone = cellZone
            }
            text.append(character)
        }
        if colors { text += Zone.reset }
        return text
    }

    func zoneOfCell(_ index: Int, width: Int) -> Zone {
        let decibels = Self.lowestDecibels * (1 - (Float(index) + 0.5) / Float(width))
        return decibels >= Self.redFrom ? .red : decibels >= Self.yellowFrom ? .yellow : .green
    }

    // MARK: Compact

    /// Channels in columns: `name ▕bar▏ -12.3!` each, as many across as fit, folded down.
    func compactLines(_ channels: [MeterSnapshot.Channel], rows available: Int) -> [String] {
        let longest = channels.map(\.name.count).max() ?? 0
        let labels = labelWidth(channels)
        // A session's numbered tracks take narrower cells until every one fits: shorter names
        // and bars, then no names at all, the numbers saying which is which.
        var shapes = [(name: min(10, longest), bar: 8)]
        if labels > 0 { shapes += [(name: min(6, longest), bar: 6), (name: 0, bar: 5)] }
        func columns(_ shape: (name: Int, bar: Int)) -> Int {
            let cellWidth = labels + (shape.name > 0 ? shape.name + 1 : 0) + shape.bar + 2 + 1 + 5 + 1
            return max(1, (width + 2) / (cellWidth + 2))
        }
        let shape = shapes.first { (channels.count + columns($0) - 1) / columns($0) <= available } ?? shapes[shapes.count - 1]
        let nameWidth = shape.name, barWidth = shape.bar
        let columns = columns(shape)
        let rowsNeeded = (channels.count + columns - 1) / columns
        let rows = rowsNeeded <= available ? rowsNeeded : max(1, available - 1)
        var lines: [String] = []
        for row in 0..<rows {
            var cells: [String] = []
            for column in 0..<columns {
                let index = row * columns + column
                guard index < channels.count else { break }
                let reading = channels[index].reading
                let channel = channels[index]
                let name = nameWidth > 0 ? fit(channel.name, nameWidth) + " " : ""
                cells.append(dimmedUnlessArmed(channel, prefix(channel, labels) + name + "▕"
                    + bar(reading, width: barWidth, colored: channel.armed) + "▏ "
                    + decibelText(reading.peakPower, width: 5)
                    + (channel.isClipped ? paint("!", .clip) : channel.dead != nil ? paint("×", .red) : " ")))
            }
            lines.append(cells.joined(separator: "  ").replacingTrailingSpaces())
        }
        let shown = rows * columns
        if shown < channels.count {
            lines.append("… \(channels.count - shown) more channels: enlarge the terminal")
        }
        return lines
    }

    // MARK: Pieces

    func decibelText(_ decibels: Float, width: Int) -> String {
        let text = DecibelText.text(Double(decibels))
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    func fit(_ name: String, _ width: Int) -> String {
        if name.count <= width { return name + String(repeating: " ", count: width - name.count) }
        return "…" + name.suffix(width - 1)
    }

    enum Zone: Equatable {
        case green, yellow, red, empty, clip

        var escape: String {
            switch self {
            case .green: "\u{1B}[32m"
            case .yellow: "\u{1B}[33m"
            case .red: "\u{1B}[31m"
            case .empty: "\u{1B}[2m"
            case .clip: "\u{1B}[1;41;97m"
            }
        }

        static let reset = "\u{1B}[0m"
    }

    func paint(_ text: String, _ zone: Zone) -> String {
        colors ? zone.escape + text + Zone.reset : text
    }

    /// Columns a string takes on screen: its characters, less escape sequences.
    func visibleWidth(_ text: String) -> Int {
        var count = 0
        var inEscape = false
        for character in text {
            if inEscape {
                if character.isLetter { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                count += 1
            }
        }
        return count
    }
}

extension String {
    func replacingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
