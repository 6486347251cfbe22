/// A player ring's geometry.
enum PlaybackRing {
    /// Frames in a full block.
    static var blockFrames: Int { @_noAllocation @_noLocks get { 4_096 } }

    /// Bytes one block takes on the ring for `channels` channels.
    @_noAllocation @_noLocks
    static func blockByteCount(channels: Int) -> Int {
        PlaybackBlockHeader.byteCount + blockFrames * channels * MemoryLayout<Float>.stride
    }

    /// Blocks on a ring holding at least `seconds` at `sampleRate` (at least 4).
    static func blockCount(seconds: Double, sampleRate: Int) -> Int {
        max(4, Int((seconds * Double(sampleRate) / Double(blockFrames)).rounded(.up)))
    }
}
