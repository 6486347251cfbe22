/// JSON text with the keys in a fixed order.
///
/// Why not JSONEncoder: on Linux it writes an object's keys in hash order, which changes from run
/// to run, and the log's lines should read the same way every time (`take` first, so a line cut
/// short still names its take; then the fields in the order a person reads them). Reading still
/// goes through JSONDecoder.
indirect enum OrderedJSON: Equatable {
    case object([(String, OrderedJSON)])
    case array([OrderedJSON])
    case string(String)
    case integer(Int64)
    case unsigned(UInt64)
    case number(Double)
    case bool(Bool)
    case null

    static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool { lhs.text == rhs.text }

    /// Compact JSON text (no spaces, no newlines).
    var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    func write(to output: inout String) {
        switch self {
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                Self.write(string: member.0, to: &output)
                output += ":"
                member.1.write(to: &output)
            }
            output += "}"
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .string(let text): Self.write(string: text, to: &output)
        case .integer(let value): output += String(value)
        case .unsigned(let value): output += String(value)
        case .number(let value):
            // JSON has no infinities or NaN; callers leave such values out, and this is the
            // last guard. A whole number is written without ".0", as JSONEncoder does.
            if !value.isFinite {
                output += "null"
            } else if value == value.rounded(), value.magnitude < 1e15 {
                output += String(Int64(value))
            } else {
                output += String(value)
            }
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, everything else as is
    /// (UTF-8), so a note in any language stays readable in the file.
    static func write(string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

/// Builds an object member list, leaving out the members whose value is nil.
struct OrderedJSONObject {
    private(set) var members: [(String, OrderedJSON)] = []

    mutating func add(_ key: String, _ value: OrderedJSON?) {
        if let value { members.append((key, value)) }
    }

    var json: OrderedJSON { .object(members) }
}

extension TakeLogFile {
    var orderedJSON: OrderedJSON {
        var object = OrderedJSONObject()
        object.add("path", .string(path))
        object.add("tracks", .array(tracks.map(OrderedJSON.string)))
        object.add("frames", frames.map(OrderedJSON.integer))
        return object.json
    }
}

extension TakeLogTrack {
    var orderedJSON: OrderedJSON {
        var object = OrderedJSONObject()
        object.add("name", .string(name))
        object.add("source", .string(source))
        object.add("capture_latency", captureLatency.map { .integer(Int64($0)) })
        object.add("aligned_latency", alignedLatency.map { .integer(Int64($0)) })
        // Silence (-inf) becomes the floor; a value that is no level at all (NaN, +inf from a
        // broken sample) is left out rather than failing the append.
        if let peak = highestPeakDBFS, !peak.isNaN, peak != .infinity {
            object.add("highest_peak_dbfs", .number(Self.floored(peak)))
        }
        object.add("clipped_samples", clippedSamples.map(OrderedJSON.integer))
        return object.json
    }
}

extension TakeLogOverdub {
    var orderedJSON: OrderedJSON {
        .object([("take", .integer(Int64(take))), ("playback_start_frame", .unsigned(UInt64(playbackStartFrame))),
                 ("playback_latency", .integer(Int64(playbackLatency)))])
    }
}

extension TakeLogSpan {
    var orderedJSON: OrderedJSON {
        .object([("position", .integer(position)), ("frames", .integer(frames))])
    }
}

extension TakeLogPatch {
    var orderedJSON: OrderedJSON {
        var object = OrderedJSONObject()
        object.add("position", .integer(position))
        object.add("track", .string(track))
        object.add("source", .string(source))
        object.add("connected", .bool(connected))
        object.add("exact", .bool(exact))
        object.add("uncertain_frames", uncertainFrames.map(OrderedJSON.integer))
        return object.json
    }
}

extension TakeLogPause {
    var orderedJSON: OrderedJSON {
        var object = OrderedJSONObject()
        object.add("position", .integer(position))
        object.add("from_frame", .unsigned(UInt64(fromFrame)))
        object.add("to_frame", toFrame.map { .unsigned(UInt64($0)) })
        return object.json
    }
}

extension TakeLogMarker {
    var orderedJSON: OrderedJSON {
        var object = OrderedJSONObject()
        object.add("position", .integer(position))
        object.add("time", time.map(OrderedJSON.string))
        return object.json
    }
}

extension TakeLogRecord {
    /// The record's keys in the log's order; a cleared note or mark as `null`.
    var orderedJSON: OrderedJSON {
        var object = OrderedJSONObject()
        object.add("take", .integer(Int64(take)))
        object.add("status", status.map { .string($0.rawValue) })
        object.add("start_frame", startFrame.map { .unsigned(UInt64($0)) })
        object.add("start_time", startTime.map(OrderedJSON.string))
        object.add("transport_frame", transportFrame.map { .unsigned(UInt64($0)) })
        object.add("bbt", bbt.map(OrderedJSON.string))
        object.add("trigger_position", triggerPosition.map(OrderedJSON.integer))
        object.add("overdub", overdub.map(\.orderedJSON))
        object.add("part", part.map(OrderedJSON.string))
        object.add("netjack_latency_cycles", netjackLatencyCycles.map { .integer(Int64($0)) })
        object.add("master_start_frame", masterStartFrame.map { .unsigned(UInt64($0)) })
        object.add("sample_rate", sampleRate.map { .integer(Int64($0)) })
        object.add("frames", frames.map(OrderedJSON.integer))
        object.add("files", files.map { .array($0.map(\.orderedJSON)) })
        object.add("tracks", tracks.map { .array($0.map(\.orderedJSON)) })
        object.add("xruns", xruns.map { .array($0.map(\.orderedJSON)) })
        object.add("lost", lost.map { .array($0.map(\.orderedJSON)) })
        // Written only when there are some, as TakeLogEntry's Encodable does.
        object.add("late", late.flatMap { $0.isEmpty ? nil : .array($0.map(\.orderedJSON)) })
        object.add("uncertain", uncertain.flatMap { $0.isEmpty ? nil : .array($0.map(\.orderedJSON)) })
        object.add("dropouts", dropouts.flatMap { $0.isEmpty ? nil : .array($0.map(\.orderedJSON)) })
        object.add("master_jumps", masterJumps.flatMap { $0.isEmpty ? nil : .array($0.map(\.orderedJSON)) })
        object.add("clock_steps", clockSteps.flatMap { $0.isEmpty ? nil : .array($0.map(\.orderedJSON)) })
        object.add("pauses", pauses.map { .array($0.map(\.orderedJSON)) })
        object.add("patching", patching.flatMap { $0.isEmpty ? nil : .array($0.map(\.orderedJSON)) })
        object.add("lost_events", lostEvents.flatMap { $0 > 0 ? .integer(Int64($0)) : nil })
        object.add("markers", markers.map { .array($0.map(\.orderedJSON)) })
        switch mark {
        case .none: break
        case .some(.none): object.add("mark", .null)
        case .some(.some(let mark)): object.add("mark", .string(mark.rawValue))
        }
        switch note {
        case .none: break
        case .some(.none): object.add("note", .null)
        case .some(.some(let text)): object.add("note", .string(text))
        }
        return object.json
    }
}

extension TakeLogEntry {
    /// The entry as the log writes it: every key, in the log's order, nil optionals left out.
    var orderedJSON: OrderedJSON { TakeLogRecord(self).orderedJSON }
}
