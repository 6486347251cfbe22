/// The total-samples field of a FLAC file's STREAMINFO, which a killed encoder leaves at 0
/// ("unknown"): libsndfile then reports no length (SF_COUNT_MAX), so a player cannot tell where
/// the file ends or seek in it. Recovery sets it to the frames the file decodes to.
///
/// STREAMINFO is the first metadata block, right after `fLaC`: a 4-byte block header (type 0,
/// length 34), then min/max block size (2 + 2 bytes), min/max frame size (3 + 3), and 64 bits of
/// sample rate (20), channels - 1 (3), bits per sample - 1 (5) and total samples (36): the total is
/// the low 4 bits of file byte 21 and bytes 22 to 25. The MD5 after it stays 0 (not computed),
/// which readers take as "no signature".
enum FlacStreamInfo {
    /// Sets the total samples of the FLAC file in `file` to `frames` when the file is FLAC and its
    /// STREAMINFO says 0; returns whether it wrote. Any other file is left alone.
    static func setUnknownTotal(to frames: Int64, in file: RawFile) throws(TakeLogError) -> Bool {
        guard frames > 0, frames < 1 << 36, let head = try file.read(26, at: 0),
              head[0..<4].elementsEqual("fLaC".utf8),
              head[4] & 0x7F == 0, head[5] == 0, head[6] == 0, head[7] == 34,
              head[21] & 0x0F == 0, head[22..<26].allSatisfy({ $0 == 0 }) else { return false }
        let total = UInt64(frames)
        let bytes: [UInt8] = [head[21] | UInt8(total >> 32 & 0x0F), UInt8(total >> 24 & 0xFF), UInt8(total >> 16 & 0xFF),
                              UInt8(total >> 8 & 0xFF), UInt8(total & 0xFF)]
        try file.write(bytes, at: 21)
        return true
    }
}
