/// Names for takes recorded without `-o`: `take-001.wav`, `take-002.wav`, ... in a folder. A number
/// is never reused, even when an earlier take was deleted, so names keep recording order.
public enum TakeNaming {
    public static let prefix = "take-"

    /// The take number in a file name such as `take-012.flac`, or nil if it is not a take.
    public static func takeNumber(of fileName: String) -> Int? {
        guard fileName.hasPrefix(prefix) else { return nil }
        let rest = fileName.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count == rest.count || rest.dropFirst(digits.count).first == "." else {
            return nil
        }
        return Int(digits)
    }

    /// The file name for take `number`.
    public static func fileName(number: Int, fileExtension: String) -> String {
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        return "\(prefix)\(padded).\(fileExtension)"
    }

    /// The next take's file name, given the names already in the folder: one past the highest
    /// take number there, whatever its extension.
    public static func nextFileName(existing names: [String], fileExtension: String) -> String {
        let highest = names.compactMap(takeNumber(of:)).max() ?? 0
        return fileName(number: highest + 1, fileExtension: fileExtension)
    }

    /// The names in a folder (opendir/readdir).
    public static func fileNames(inDirectory directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            names.append(name)
        }
        return names
    }
}
