/// A level as jcap shows it to a person: signed dBFS to a tenth (`+3.0`, `-12.0`, ` 0.0`), and
/// silence, anything at or below the meter floor, as `-inf`. One floor and one wording for the
/// meters, the summaries and `jcap takes`; JSON keeps the floor as a number.
package enum DecibelText {
    /// The meter floor: -160 dBFS, where the meters, the take log and JSON put silence.
    package static let floor: Double = Double(ChannelMeters.floor)

    package static func text(_ decibels: Double) -> String {
        guard decibels > floor, !decibels.isNaN else { return "-inf" }
        // Half to even, as printf rounds: -3.25 reads -3.2 wherever it is shown.
        let tenths = Int((decibels * 10).rounded(.toNearestOrEven))
        let sign = tenths < 0 ? "-" : (tenths > 0 ? "+" : " ")
        let magnitude = abs(tenths)
        return "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
