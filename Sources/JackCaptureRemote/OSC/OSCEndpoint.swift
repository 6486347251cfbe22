import CLiblo
import Glibc
import Synchronization

/// A UDP OSC endpoint on liblo: it receives without blocking (polled from jcap's run loop, so
/// every command reaches the control core on the core's own thread) and sends from the port it
/// listens on, so that a reply or a subscription comes from the address the peer sent to (NSM
/// requires it; OSC controllers expect it).
///
/// liblo rather than an encoder of our own: it is what the peers (nsmd, oscsend, oscdump,
/// Ardour, Carla) use, so the wire format is theirs by construction, and it parses and refuses
/// malformed packets before jcap sees them.
public final class OSCEndpoint {
    private let server: lo_server
    private let inbox: Inbox
    private var addresses: [OSCAddress: lo_address] = [:]

    /// Packets liblo refused as malformed (or other liblo errors), in this process: for the log.
    public static let malformedCount = Atomic<Int>(0)

    /// Listens on UDP `port` ("0" or nil: a free port), on every interface.
    public init(port: String? = nil) throws(OSCError) {
        guard let server = lo_server_new_with_proto(port == "0" ? nil : port, LO_UDP, osc_error_handler) else {
            throw .cannotListen(port: port ?? "0")
        }
        self.server = server
        inbox = Inbox()
        lo_server_add_method(server, nil, nil, osc_collect_message, Unmanaged.passUnretained(inbox).toOpaque())
    }

    deinit {
        for address in addresses.values { lo_address_free(address) }
        lo_server_free(server)
    }

    /// The UDP port it listens on.
    public var port: Int { Int(lo_server_get_port(server)) }

    /// Its `osc.udp://host:port/` URL, as NSM and liblo's tools spell addresses.
    public var url: String {
        guard let text = lo_server_get_url(server) else { return "osc.udp://localhost:\(port)/" }
        defer { free(text) }
        return String(cString: text)
    }

    /// The messages waiting, oldest first, at most `limit` (a flood waits for the next poll
    /// instead of holding the run loop). Never blocks.
    public func receive(limit: Int = 64) -> [OSCMessage] {
        var received = 0
        while received < limit, lo_server_recv_noblock(server, 0) > 0 { received += 1 }
        return inbox.take()
    }

    /// Sends `path` with `arguments` to `address`, from the listening port. False when liblo
    /// could not send it (the peer's address does not resolve, the network is down).
    @discardableResult
    public func send(_ path: String, _ arguments: [OSCArgument] = [], to address: OSCAddress) -> Bool {
        guard let target = loAddress(address), let message = lo_message_new() else { return false }
        defer { lo_message_free(message) }
        for argument in arguments {
            switch argument {
            case .int(let value): lo_message_add_int32(message, value)
            case .float(let value): lo_message_add_float(message, value)
            case .double(let value): lo_message_add_double(message, value)
            case .string(let value): lo_message_add_string(message, value)
            }
        }
        return lo_send_message_from(target, server, path, message) >= 0
    }

    private func loAddress(_ address: OSCAddress) -> lo_address? {
        if let known = addresses[address] { return known }
        guard let made = lo_address_new(address.host, address.port) else { return nil }
        addresses[address] = made
        return made
    }

    /// Where liblo's handler puts what it decoded: filled and emptied on the polling thread only
    /// (lo_server_recv_noblock calls the handler before it returns).
    fileprivate final class Inbox {
        var messages: [OSCMessage] = []
        func take() -> [OSCMessage] {
            defer { messages.removeAll(keepingCapacity: true) }
            return messages
        }
    }
}

/// Every message, whatever its path and types, into the endpoint's inbox; jcap answers unknown
/// paths itself (with `/jcap/error`), so nothing is matched here.
private func osc_collect_message(_ path: UnsafePointer<CChar>?, _ types: UnsafePointer<CChar>?,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?, _ argc: Int32,
                                 _ message: lo_message?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let userData, let path else { return 0 }
    let inbox = Unmanaged<OSCEndpoint.Inbox>.fromOpaque(userData).takeUnretainedValue()
    let typeTags = types.map { String(cString: $0) } ?? ""
    var arguments: [OSCArgument?] = []
    for (index, tag) in typeTags.utf8.enumerated() where index < Int(argc) {
        guard let argument = argv?[index] else { arguments.append(nil); continue }
        switch tag {
        case UInt8(ascii: "i"): arguments.append(.int(argument.pointee.i))
        case UInt8(ascii: "f"): arguments.append(.float(argument.pointee.f))
        case UInt8(ascii: "d"): arguments.append(.double(argument.pointee.d))
        case UInt8(ascii: "s"), UInt8(ascii: "S"):
            arguments.append(.string(String(cString: UnsafeRawPointer(argument).assumingMemoryBound(to: CChar.self))))
        default: arguments.append(nil)
        }
    }
    var sender: OSCAddress?
    if let message, let source = lo_message_get_source(message),
       let host = lo_address_get_hostname(source), let port = lo_address_get_port(source) {
        sender = OSCAddress(host: String(cString: host), port: String(cString: port))
    }
    inbox.messages.append(OSCMessage(path: String(cString: path), typeTags: typeTags, arguments: arguments, sender: sender))
    return 0
}

/// liblo's errors (a malformed packet, a failed bind): counted, never fatal; the bind failure is
/// what `OSCEndpoint.init` throws.
private func osc_error_handler(_ number: Int32, _ message: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?) {
    OSCEndpoint.malformedCount.wrappingAdd(1, ordering: .relaxed)
}
