/// A player's `PlayerProcessState`, pinned at one address from `prepareToPlay` until its host
/// frees it, last, when it closes.
// @unchecked: the pointer is shared with JACK's process thread, which touches only the state's
// atomics and its own fields (`PlayerProcessState` says which).
struct PlayerStatePointer: @unchecked Sendable {
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
