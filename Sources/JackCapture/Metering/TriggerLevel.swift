/// A trigger level as text: `-40dB`, `-40 dB` or `-40` (dBFS), from -160 to 0.
package enum TriggerLevel {
    package static func parse(_ text: String) throws(CaptureError) -> Double {
        var number = text.trimmingWhitespace()
        if number.lowercased().hasSuffix("dbfs") { number.removeLast(4) } else if number.lowercased().hasSuffix("db") { number.removeLast(2) }
        number = number.trimmingWhitespace()
        guard let value = Double(number), value.isFinite else {
            throw .badTriggerLevel(text)
        }
        guard value <= 0, value >= -160 else {
            throw .triggerLevelOutOfRange(value)
        }
        return value
    }
}
