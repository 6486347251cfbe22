/// One OSC argument, of the types jcap reads and sends (`i`, `f`, `d`, `s`).
public enum OSCArgument: Equatable, Sendable {
    case int(Int32)
    case float(Float)
    case double(Double)
    case string(String)

    /// An int, or a float or double that is a whole number (OSC controllers send either for a
    /// take number or a switch).
    public var intValue: Int? {
        switch self {
        case .int(let value): return Int(value)
        case .float(let value): return value.rounded() == value && abs(value) < 1e9 ? Int(value) : nil
        case .double(let value): return value.rounded() == value && abs(value) < 1e9 ? Int(value) : nil
        case .string: return nil
        }
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
