/// A number of bytes as a person reads it: `0 bytes`, `812 bytes`, `37 KiB`, `1.4 MiB`, `212.0 GiB`
/// (rounded down, so free space is never overstated).
package enum ByteCountText {
    package static func describe(_ bytes: Int64) -> String {
        let kibibyte: Int64 = 1 << 10, mebibyte: Int64 = 1 << 20, gibibyte: Int64 = 1 << 30
        if bytes < kibibyte { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
        if bytes < mebibyte { return "\(bytes / kibibyte) KiB" }
        let (unit, name) = bytes < gibibyte ? (mebibyte, "MiB") : (gibibyte, "GiB")
        return "\(bytes / unit).\(bytes % unit * 10 / unit) \(name)"
    }
}
