/// A player's `PlayerProcessState`, pinned at one address from `prepareToPlay` until its host
/// frees it, last, when it closes.
struct PlayerStatePointer: @unchecked Sendable {
    // @unchecked: raw memory shared with the JACK process callback (only atomics cross).
    let pointer: UnsafeMutablePointer<PlayerProcessState>

    init(allocatingFor state: PlayerProcessState) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: state)
    }

    var pointee: PlayerProcessState { pointer.pointee }

    /// The callbacks' argument.
    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }

    /// Frees the state: only once nothing can run the callbacks any more (the client closed).
    func free() {
        pointer.pointee.deallocate()
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
