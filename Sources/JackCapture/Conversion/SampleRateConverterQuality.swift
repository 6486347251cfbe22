/// How a file written at a rate other than the server's is resampled: libsamplerate's converter
/// types, best first. The raw values are libsamplerate's (`SRC_SINC_BEST_QUALITY` is 0).
public enum SampleRateConverterQuality: Int32, CaseIterable, Sendable {
    /// SRC_SINC_BEST_QUALITY: band-limited sinc, 97 dB SNR, 97% bandwidth. The default: a
    /// recording is made once. It costs: on the 2-core benchmark machine the writer converts 2
    /// channels 16× faster than real time but 64 channels only 1.5× (BENCHMARKS.md), so beyond a
    /// few dozen channels choose `.medium` (5.5× at 64) or the ring will fill.
    case best = 0
    /// SRC_SINC_MEDIUM_QUALITY: 97 dB SNR, 90% bandwidth, several times faster.
    case medium = 1
    /// SRC_SINC_FASTEST: 97 dB SNR, 80% bandwidth.
    case fastest = 2
    /// SRC_ZERO_ORDER_HOLD: repeats samples; aliases. For checking, not for music.
    case zeroOrderHold = 3
    /// SRC_LINEAR: linear interpolation; aliases. For checking, not for music.
    case linear = 4

    /// The quality's name, as a user writes it.
    public var name: String {
        switch self {
        case .best: "best"
        case .medium: "medium"
        case .fastest: "fastest"
        case .zeroOrderHold: "zero-order-hold"
        case .linear: "linear"
        }
    }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = match
    }
}
