/// What the reader does at the end of the file (`Player.numberOfLoops`).
enum LoopDecision: Equatable {
    /// Back to the file's first frame: the next block's first frame follows the last one.
    case rewind
    /// No loop left: the end block.
    case end

    /// - Parameters:
    ///   - numberOfLoops: 0 plays once, n repeats n more times, any negative number forever.
    ///   - loopsDone: repeats already begun.
    ///   - fileFrames: an empty file never loops (it would loop without end and without sound).
    static func atEndOfFile(numberOfLoops: Int, loopsDone: Int, fileFrames: Int64) -> LoopDecision {
        guard fileFrames > 0 else { return .end }
        return numberOfLoops < 0 || loopsDone < numberOfLoops ? .rewind : .end
    }
}
