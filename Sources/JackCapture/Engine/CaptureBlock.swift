/// What precedes each cycle's frames on the ring: where they belong in the take, how many there
/// are and when JACK delivered the first of them. The frames follow, channel after channel
/// (planar), each channel `frameCount` 32-bit floats: exactly what JACK's port buffers hold, so the
/// process callback only ever makes one whole copy per channel.
public struct CaptureBlockHeader: Equatable, Sendable {
    /// Index in the take of the first frame of this block. Frames before it that no block carried
    /// (a cycle dropped on overrun, frames skipped by an xrun) are written as silence.
    public var position: Int64
    /// Frames per channel in this block.
    public var frameCount: Int32
    /// JACK frame time of the first frame.
    public var frameTime: UInt32

    public init(position: Int64, frameCount: Int32, frameTime: UInt32) {
        self.position = position
        self.frameCount = frameCount
        self.frameTime = frameTime
    }

    /// Bytes one header takes on the ring.
    @inlinable
    public static var byteCount: Int {
        @_noAllocation @_noLocks get { MemoryLayout<CaptureBlockHeader>.stride }
    }

    /// Bytes a whole block takes on the ring.
    @inlinable
    @_noAllocation @_noLocks
    public static func blockByteCount(frames: Int, channels: Int) -> Int {
        MemoryLayout<CaptureBlockHeader>.stride + frames * channels * MemoryLayout<Float>.stride
    }
}
