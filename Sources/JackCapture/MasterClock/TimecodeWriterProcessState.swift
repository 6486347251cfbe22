import CJack

/// What a `TimecodeWriter`'s process callback reads: its client and its port.
struct TimecodeWriterProcessState {
    /// The `jack_client_t *`, for jack_last_frame_time.
    let client: OpaquePointer
    /// The `jack_port_t *` of the writer's port.
    let port: OpaquePointer

    /// The state pinned at one address from activation until the writer's host frees it, last,
    /// when it closes.
    struct Pinned: @unchecked Sendable {
        // @unchecked: raw memory read by the JACK process callback; written only before activation.
        let pointer: UnsafeMutablePointer<TimecodeWriterProcessState>

        init(client: OpaquePointer, port: OpaquePointer) {
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: TimecodeWriterProcessState(client: client, port: port))
        }

        /// The callback's argument.
        var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }

        /// Frees the state: only once nothing can run the callback any more (the client closed).
        func free() {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }
    }
}
