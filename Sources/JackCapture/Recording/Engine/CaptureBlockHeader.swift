/// Frames of a block that belong to the take: `count` frames from `offset` in the block, at
/// `position` in the take.
package struct BlockSpan: Equatable, Sendable {
    package var offset: Int32
    package var count: Int32
    package var position: Int64

    @_noAllocation @_noLocks
    package init(offset: Int32, count: Int32, position: Int64) {
        self.offset = offset
        self.count = count
        self.position = position
    }
}

/// What precedes each cycle's frames on the ring: the take it belongs to, how many frames it
/// stores, the JACK frame time of the first, and which of them go where in the take. The frames
/// follow, channel after channel (planar), each channel `frameCount` 32-bit floats: exactly what
/// JACK's port buffers hold, so the process callback only ever makes one whole copy per channel.
/// Frames before a span's position that no block carried (a cycle dropped on overrun, frames
/// skipped by an xrun) are written as silence.
package struct CaptureBlockHeader: Equatable, Sendable {
    /// The take (`CaptureEngine.arm` numbers them) whose frames these are.
    package var take: UInt32
    /// Frames per channel stored in this block: the whole cycle.
    package var frameCount: Int32
    /// JACK frame time of the first stored frame.
    package var frameTime: UInt32
    package var spanCount: Int32
    /// A clock-aligned split the writer learns with this block: the take position
    /// where the next file begins (-1: none). Never past a frame this block or an earlier one
    /// holds, so the writer knows it before it writes that frame.
    package var splitPosition: Int64
    /// The boundary it was (1 for the take's first), for the file's name.
    package var splitBoundary: Int64
    private var span0: BlockSpan
    private var span1: BlockSpan
    private var span2: BlockSpan
    private var span3: BlockSpan

    /// Spans a block can carry: a cycle holds at most a start, a pause and a resume.
    package static var maximumSpans: Int { @_noAllocation @_noLocks get { 4 } }

    /// A block whose frames all go into take `take` from `position` on.
    package init(position: Int64, frameCount: Int32, frameTime: UInt32, take: UInt32 = 0) {
        self.init(take: take, frameCount: frameCount, frameTime: frameTime)
        append(BlockSpan(offset: 0, count: frameCount, position: position))
    }

    /// A block with no spans yet.
    @_noAllocation @_noLocks
    package init(take: UInt32, frameCount: Int32, frameTime: UInt32) {
        self.take = take
        self.frameCount = frameCount
        self.frameTime = frameTime
        spanCount = 0
        splitPosition = -1
        splitBoundary = 0
        let empty = BlockSpan(offset: 0, count: 0, position: 0)
        span0 = empty
        span1 = empty
        span2 = empty
        span3 = empty
    }

    @_noAllocation @_noLocks
    package mutating func append(_ span: BlockSpan) {
        switch spanCount {
        case 0: span0 = span
        case 1: span1 = span
        case 2: span2 = span
        case 3: span3 = span
        default: return
        }
        spanCount += 1
    }

    @_noAllocation @_noLocks
    package func span(_ index: Int) -> BlockSpan {
        switch index {
        case 0: span0
        case 1: span1
        case 2: span2
        default: span3
        }
    }

    /// Bytes one header takes on the ring.
    @inlinable
    package static var byteCount: Int {
        @_noAllocation @_noLocks get { MemoryLayout<CaptureBlockHeader>.stride }
    }

    /// Bytes a whole block takes on the ring.
    @inlinable
    @_noAllocation @_noLocks
    package static func blockByteCount(frames: Int, channels: Int) -> Int {
        MemoryLayout<CaptureBlockHeader>.stride + frames * channels * MemoryLayout<Float>.stride
    }
}
