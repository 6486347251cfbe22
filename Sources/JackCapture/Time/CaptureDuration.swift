/// A length of time as the user wrote it: a whole number of frames, or an exact decimal number of
/// seconds. Seconds are kept as a fraction (numerator over a power of ten), never a binary float,
/// so `1.01s` at 48 kHz is 48,480 frames, not 48,479.
public enum CaptureDuration: Equatable, Sendable, CustomStringConvertible {
    case frames(Int64)
    /// `numerator / denominator` seconds, `denominator` a power of ten.
    case seconds(numerator: Int64, denominator: Int64)

    /// Parses `60s`, `1.01s`, `250ms`, `48000f`, `2m`, `1h`, `1:30` (m:ss), `1:02:03.5`
    /// (h:mm:ss.frac) or a bare number of seconds.
    public init(parsing text: String) throws(CaptureError) {
        do {
            self = try CaptureDuration.parse(text.trimmingWhitespace())
        } catch {
            throw .badDuration(text, reason: error.reason)
        }
    }

    /// Frames at `sampleRate`, rounded to the nearest frame (halves up).
    ///
    /// - Throws: `.badDuration` when the count does not fit in 64 bits (it is never saturated),
    ///   or the duration is not a number (a denominator that is not positive).
    public func frames(atSampleRate sampleRate: Int) throws(CaptureError) -> Int64 {
        switch self {
        case .frames(let frames):
            return frames
        case .seconds(let numerator, let denominator):
            guard denominator > 0 else { throw .badDuration(description, reason: "the denominator must be above zero") }
            let (product, overflow) = numerator.multipliedReportingOverflow(by: Int64(sampleRate))
            let (rounded, overflow2) = product.addingReportingOverflow(denominator / 2)
            guard !overflow, !overflow2 else {
                throw .badDuration(description, reason: "too long: more than \(Int64.max) frames at \(sampleRate) Hz")
            }
            return rounded / denominator
        }
    }

    /// The length of a take this long, in frames at `sampleRate`.
    ///
    /// - Throws: `.badDuration` when it is zero or negative, or too long to count.
    package func takeLength(atSampleRate sampleRate: Int) throws(CaptureError) -> Int64 {
        let frames = try frames(atSampleRate: sampleRate)
        guard frames > 0 else { throw .badDuration(description, reason: "a take must be longer than zero") }
        return frames
    }

    /// As it could be written: `48000f`, `1.01s`.
    public var description: String {
        switch self {
        case .frames(let frames): return "\(frames)f"
        case .seconds(let numerator, let denominator):
            guard denominator > 0 else { return "\(numerator)/\(denominator)s" }
            var text = "\(numerator / denominator)"
            var fraction = numerator % denominator
            var places = ""
            var scale = denominator
            while scale > 1, fraction != 0 || !places.isEmpty, scale % 10 == 0 {
                scale /= 10
                places += "\(abs(fraction / scale))"
                fraction %= scale
                if fraction == 0 { break }
            }
            if !places.isEmpty { text += "." + places }
            return text + "s"
        }
    }

    public var isZero: Bool {
        switch self {
        case .frames(let frames): frames == 0
        case .seconds(let numerator, _): numerator == 0
        }
    }

    struct ParseFailure: Error { var reason: String }

    static let expected = "expected e.g. 60s, 1.01s, 250ms, 48000f, 1:30 or 1:02:03.5"

    private static func parse(_ text: String) throws(ParseFailure) -> CaptureDuration {
        guard !text.isEmpty else { throw ParseFailure(reason: "it is empty; \(expected)") }
        if text.contains(":") { return try parseClock(text) }
        let units: [(suffix: String, numerator: Int64, denominator: Int64)] = [
            ("ms", 1, 1_000), ("min", 60, 1), ("s", 1, 1), ("m", 60, 1), ("h", 3_600, 1),
        ]
        if text.hasSuffix("f") {
            let digits = String(text.dropLast())
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let frames = Int64(digits)
            else { throw ParseFailure(reason: "a frame count is a whole number, like 48000f") }
            return .frames(frames)
        }
        for unit in units where text.hasSuffix(unit.suffix) {
            let number = try Decimal.parse(String(text.dropLast(unit.suffix.count)))
            return try seconds(number, times: unit.numerator, over: unit.denominator)
        }
        guard text.last?.isNumber == true else { throw ParseFailure(reason: "unknown unit; \(expected)") }
        return try seconds(try Decimal.parse(text), times: 1, over: 1)
    }

    /// `m:ss[.frac]` or `h:mm:ss[.frac]`.
    private static func parseClock(_ text: String) throws(ParseFailure) -> CaptureDuration {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3 else {
            throw ParseFailure(reason: "a clock duration is m:ss or h:mm:ss")
        }
        let secondsPart = try Decimal.parse(parts[parts.count - 1])
        guard parts[parts.count - 1].prefix(while: \.isNumber).count == 2, secondsPart.integerPart < 60 else {
            throw ParseFailure(reason: "seconds after ':' are two digits, 00 to 59")
        }
        var wholeSeconds: Int64 = 0
        for (index, part) in parts.dropLast().enumerated() {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(part),
                  value < 1_000_000 else {
                throw ParseFailure(reason: "'\(part)' is not a whole number of \(index == 0 && parts.count == 3 ? "hours" : "minutes")")
            }
            let isMinutesAfterHours = parts.count == 3 && index == 1
            if isMinutesAfterHours && (part.count != 2 || value >= 60) {
                throw ParseFailure(reason: "minutes after ':' are two digits, 00 to 59")
            }
            wholeSeconds = wholeSeconds * 60 + value
        }
        wholeSeconds *= 60
        let numerator = wholeSeconds * secondsPart.denominator + secondsPart.numerator
        return .seconds(numerator: numerator, denominator: secondsPart.denominator)
    }

    private static func seconds(_ number: Decimal, times factor: Int64, over divisor: Int64) throws(ParseFailure)
        -> CaptureDuration {
        let (numerator, overflow) = number.numerator.multipliedReportingOverflow(by: factor)
        let (denominator, overflow2) = number.denominator.multipliedReportingOverflow(by: divisor)
        guard !overflow, !overflow2 else { throw ParseFailure(reason: "too long") }
        return .seconds(numerator: numerator, denominator: denominator)
    }

    /// A non-negative decimal number `123.456`, exactly, as numerator over a power of ten.
    struct Decimal {
        var numerator: Int64
        var denominator: Int64
        var integerPart: Int64 { numerator / denominator }

        static func parse(_ text: String) throws(ParseFailure) -> Decimal {
            let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
            guard pieces.count <= 2, let whole = pieces.first,
                  !(whole.isEmpty && (pieces.count == 1 || pieces[1].isEmpty)),
                  pieces.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
                throw ParseFailure(reason: "'\(text)' is not a number; \(expected)")
            }
            let fraction = pieces.count == 2 ? pieces[1] : ""
            guard whole.count <= 12, fraction.count <= 9 else {
                throw ParseFailure(reason: "'\(text)' has too many digits")
            }
            var denominator: Int64 = 1
            for _ in 0..<fraction.count { denominator *= 10 }
            // Twelve whole digits and nine after the point can pass 64 bits (999999999999.000000000).
            let (scaled, overflow) = (Int64(whole) ?? 0).multipliedReportingOverflow(by: denominator)
            let (numerator, overflow2) = scaled.addingReportingOverflow(Int64(fraction) ?? 0)
            guard !overflow, !overflow2 else { throw ParseFailure(reason: "'\(text)' is too long to count") }
            return Decimal(numerator: numerator, denominator: denominator)
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
