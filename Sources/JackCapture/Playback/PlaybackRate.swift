/// A playback rate (`Player.rate`) as the reader's converter takes it: whole ten-thousandths, so
/// a rate is a ratio of integer sample rates and libsamplerate's frame counts are exact integers.
struct PlaybackRate: Equatable {
    /// 0.5 (half speed, an octave down) ... 2 (double speed, an octave up).
    static let range: ClosedRange<Float> = 0.5...2
    static let unit = 10_000

    /// The rate × 10 000, within 5 000 ... 20 000.
    let tenThousandths: Int

    /// Clamped to `range`, then rounded to the nearest ten-thousandth (a NaN is 1).
    init(_ rate: Float) {
        let clamped = rate.isNaN ? 1 : min(max(rate, Self.range.lowerBound), Self.range.upperBound)
        tenThousandths = Int((Double(clamped) * Double(Self.unit)).rounded())
    }

    init(tenThousandths: Int) {
        self.init(Float(tenThousandths) / Float(Self.unit))
    }

    static let normal = PlaybackRate(tenThousandths: unit)

    var value: Float { Float(tenThousandths) / Float(Self.unit) }

    /// The converter's input and output rates (reduced) for a file at `fileRate` on a server at
    /// `serverRate`: the file's frames are taken in at fileRate × rate and given out at the
    /// server's rate, so a rate of 2 plays each second of the file in half a second, an octave up
    /// (pitch follows, as on tape). nil when the file plays as it is (rate 1, the server's rate):
    /// no converter, bit for bit.
    func converterRates(fileRate: Int, serverRate: Int) -> (input: Int, output: Int)? {
        if tenThousandths == Self.unit && fileRate == serverRate { return nil }
        let input = fileRate * tenThousandths
        let output = serverRate * Self.unit
        let divisor = Self.greatestCommonDivisor(input, output)
        return (input / divisor, output / divisor)
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
