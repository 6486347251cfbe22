/// The secret every request to the browser remote carries: made afresh for each run (128 bits from
/// the system's random generator) unless given with `--remote-token` or `[remote] token`.
public struct WebRemoteToken: Equatable, Sendable {
    public let value: String

    /// Letters, digits and `-._~`: what a URL carries unescaped, so the printed URL works as is.
    static let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    public static let shortest = 8
    public static let longest = 256

    public init(_ value: String) throws(WebRemoteError) {
        guard value.count >= Self.shortest, value.count <= Self.longest else {
            throw .badToken(reason: "'\(value)' must be \(Self.shortest) to \(Self.longest) characters long")
        }
        guard value.allSatisfy(Self.allowed.contains) else {
            throw .badToken(reason: "'\(value)' may hold only letters, digits and - . _ ~")
        }
        self.value = value
    }

    private init(made value: String) {
        self.value = value
    }

    /// 128 random bits, as 32 hexadecimal digits.
    public static func random() -> WebRemoteToken {
        var generator = SystemRandomNumberGenerator()
        let bits = (generator.next() as UInt64, generator.next() as UInt64)
        let hex = String(bits.0, radix: 16).leftPadded(16) + String(bits.1, radix: 16).leftPadded(16)
        return WebRemoteToken(made: hex)
    }

    /// Compares in time that does not depend on where `candidate` differs, so the token cannot be
    /// guessed a character at a time from response times.
    public func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let expected = Array(value.utf8), given = Array(candidate.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}

private extension String {
    func leftPadded(_ length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
