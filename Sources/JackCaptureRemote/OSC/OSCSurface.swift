import JackCapture

/// OSC as a control surface (`jcap session --osc PORT`): each message polled from the UDP port
/// becomes a command for the control core (`OSCRequest`), answered with `/jcap/error` when it
/// cannot be read or the core refuses it; subscribers get the meters at their rate and every
/// change of state and takes (`OSCReport`). Everything runs on the run loop's thread; a flood
/// is read `messagesPerPoll` at a time, the rest waiting in the socket for the next poll.
package final class OSCSurface: ControlSurface {
    private let endpoint: OSCEndpoint
    private var subscribers: [OSCSubscriber] = []
    /// What subscribers were last told: the state (without its clocks) and each track.
    private var toldState: [OSCArgument]?
    private var toldTracks: [[OSCArgument]] = []
    private var sampleRate = 0
    /// Where a line for the person at jcap goes (malformed packets dropped), and how many were told.
    private let tell: (String) -> Void
    private var toldMalformed = 0
    private var nextMalformedLine = ContinuousClock.now

    package static let messagesPerPoll = 64
    package static let mostSubscribers = 16
    /// How far behind the meters may fall and still be caught up.
    static let meterCatchUp = Duration.milliseconds(250)

    /// `tell`: a line for jcap's console.
    package init(_ endpoint: OSCEndpoint, tell: @escaping (String) -> Void = { _ in }) {
        self.endpoint = endpoint
        self.tell = tell
        toldMalformed = OSCEndpoint.malformedCount.load(ordering: .relaxed)
    }

    package var port: Int { endpoint.port }
    package var url: String { endpoint.url }

    package func poll(_ core: ControlCore) {
        for message in endpoint.receive(limit: Self.messagesPerPoll) { handle(message, core) }
        tellMalformed()
        guard !subscribers.isEmpty else { return }
        let state = core.state
        sampleRate = state.sampleRate
        tellChanges(state)
        sendMeters(state)
    }

    package func observe(_ events: [ControlEvent]) {
        guard !subscribers.isEmpty else { return }
        for event in events {
            for report in OSCReport.take(event, sampleRate: sampleRate) { broadcast(report) }
        }
    }

    /// Packets liblo refused, told at most once a second (a flood of them is one line a second).
    private func tellMalformed() {
        let malformed = OSCEndpoint.malformedCount.load(ordering: .relaxed)
        guard malformed > toldMalformed, ContinuousClock.now >= nextMalformedLine else { return }
        let count = malformed - toldMalformed
        tell("jcap: OSC: \(count) malformed packet\(count == 1 ? "" : "s") dropped (not OSC, or cut short)")
        toldMalformed = malformed
        nextMalformedLine = .now + .seconds(1)
    }

    // MARK: Requests

    private func handle(_ message: OSCMessage, _ core: ControlCore) {
        let request: OSCRequest
        do {
            request = try OSCRequest(message)
        } catch {
            refuse(message, error.reason)
            return
        }
        switch request {
        case .ignored:
            return
        case .command(let command):
            answer(core.answer(command), to: message)
        case .discard(let take):
            discard(take, core, message)
        case .status(let port):
            guard let target = port.map({ portOnSendersHost($0, message) }) ?? message.sender.map(replyAddress) else { return }
            let state = core.state
            for report in [OSCReport.state(state)] + OSCReport.tracks(state) { endpoint.send(report.path, report.arguments, to: target) }
        case .subscribe(let port, let rate):
            subscribe(port, rate: rate, message)
        case .unsubscribe(let port):
            guard let address = port.map({ portOnSendersHost($0, message) }) ?? message.sender,
                  let index = subscribers.firstIndex(where: { $0.address == address }) else {
                refuse(message, "not subscribed")
                return
            }
            endpoint.send("/jcap/unsubscribed", [.int(Int32(address.port) ?? 0)], to: address)
            subscribers.remove(at: index)
        }
    }

    /// `/jcap/discard i:take`: the core's discard of the last take, confirmed only when the take
    /// it asks about is the one named (a stray or repeated message discards nothing else).
    private func discard(_ take: Int, _ core: ControlCore, _ message: OSCMessage) {
        let state = core.state
        if state.pendingDiscard == nil, state.mode == .ready, let last = state.lastTake, last != take {
            refuse(message, "take \(take) is not the last take (\(last)): nothing discarded")
            return
        }
        switch core.answer(.discardLastTake) {
        case .done: break
        case let other:
            answer(other, to: message)
            return
        }
        guard let asked = core.state.pendingDiscard, asked == take else {
            core.apply(.confirmDiscard(false))
            refuse(message, "take \(take) is not the last take: nothing discarded")
            return
        }
        answer(core.answer(.confirmDiscard(true)), to: message)
    }

    private func subscribe(_ port: Int?, rate asked: Double?, _ message: OSCMessage) {
        guard let address = port.map({ portOnSendersHost($0, message) }) ?? message.sender else { return }
        let rate = min(max(asked ?? OSCRequest.defaultRate, OSCRequest.rates.lowerBound), OSCRequest.rates.upperBound)
        if let index = subscribers.firstIndex(where: { $0.address == address }) {
            // Again: the new rate, and it becomes the newest (the one its host's replies go to).
            var again = subscribers.remove(at: index)
            again.rate = rate
            subscribers.append(again)
        } else {
            // Full: the oldest goes (a subscriber that went away without unsubscribing, such as
            // oscsend's port, is never told apart on UDP, so refusing would lock out the rest).
            if subscribers.count >= Self.mostSubscribers {
                let oldest = subscribers.removeFirst()
                endpoint.send("/jcap/unsubscribed", [.int(Int32(oldest.address.port) ?? 0)], to: oldest.address)
            }
            subscribers.append(OSCSubscriber(address: address, rate: rate, nextMeters: .now))
        }
        if !endpoint.send("/jcap/subscribed", [.int(Int32(address.port) ?? 0), .float(Float(rate))], to: address) {
            subscribers.removeAll { $0.address == address }
        }
    }

    /// Where replies to `sender` go: the newest subscriber on its host (a controller that sends
    /// from one port and listens on another subscribes with the port it listens on, as Ardour's
    /// reply port), else the port it sent from.
    private func replyAddress(_ sender: OSCAddress) -> OSCAddress {
        subscribers.last { $0.address.host == sender.host }?.address ?? sender
    }

    private func portOnSendersHost(_ port: Int, _ message: OSCMessage) -> OSCAddress {
        OSCAddress(host: message.sender?.host ?? "127.0.0.1", port: "\(port)")
    }

    private func answer(_ answer: ControlAnswer, to message: OSCMessage) {
        switch answer {
        case .done: break
        case .refused(let refusal): refuse(message, Self.reason(refusal))
        case .failed(let error): refuse(message, error.description)
        }
    }

    /// `/jcap/error s:path s:reason` to the reply address of the message's sender.
    private func refuse(_ message: OSCMessage, _ reason: String) {
        guard let sender = message.sender else { return }
        endpoint.send("/jcap/error", [.string(message.path), .string(reason)], to: replyAddress(sender))
    }

    /// A refusal as OSC's users need it: the console's words name keys, these name paths.
    static func reason(_ refusal: ControlRefusal) -> String {
        switch refusal {
        case .takeRecording(.record): "a take is recording; /jcap/stop stops it"
        case .awaitingConfirmation(let take): "first answer jcap's question whether to discard take \(take)"
        default: refusal.description
        }
    }

    // MARK: Subscribers

    private func tellChanges(_ state: ControlState) {
        let change = OSCReport.stateChange(state)
        let tracks = OSCReport.tracks(state)
        let stateChanged = change != toldState
        for index in subscribers.indices {
            let everything = subscribers[index].isNew
            subscribers[index].isNew = false
            let address = subscribers[index].address
            if everything || stateChanged {
                let report = OSCReport.state(state)
                endpoint.send(report.path, report.arguments, to: address)
            }
            for (number, track) in tracks.enumerated()
            where everything || number >= toldTracks.count || toldTracks[number] != track.arguments {
                endpoint.send(track.path, track.arguments, to: address)
            }
        }
        toldState = change
        toldTracks = tracks.map(\.arguments)
    }

    private func sendMeters(_ state: ControlState) {
        let now = ContinuousClock.now
        guard subscribers.contains(where: { $0.nextMeters <= now }) else { return }
        let meters = OSCReport.meters(state)
        var failed: [OSCAddress] = []
        for index in subscribers.indices where subscribers[index].nextMeters <= now {
            let interval = Duration.seconds(1 / subscribers[index].rate)
            let next = subscribers[index].nextMeters + interval
            // A short stall is caught up, a tick a poll, so the rate holds; after a long one the
            // ticks missed are skipped rather than sent in a burst.
            subscribers[index].nextMeters = next > now - Self.meterCatchUp ? next : now + interval
            for meter in meters where !endpoint.send(meter.path, meter.arguments, to: subscribers[index].address) {
                failed.append(subscribers[index].address)
                break
            }
        }
        subscribers.removeAll { failed.contains($0.address) }
    }

    /// To every subscriber; one it cannot be sent to is dropped.
    private func broadcast(_ report: OSCReport) {
        subscribers.removeAll { !endpoint.send(report.path, report.arguments, to: $0.address) }
    }
}
