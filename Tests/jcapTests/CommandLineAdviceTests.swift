import JackCapture
import Testing
@testable import jcap

@Suite("Library errors with jcap's advice")
struct CommandLineAdviceTests {
    @Test("the library's description, with the flag or tool to use added", arguments: [
        (CaptureError.outputExists("take.wav"), "'take.wav' already exists", "'take.wav' already exists (use --overwrite to replace it)"),
        (.noPortMatches("synth:*"), "no JACK output port matches 'synth:*'", "no JACK output port matches 'synth:*' ('jcap ports' lists them)"),
        (.noInputPortMatches("mixer:*"), "no JACK input port to play to matches 'mixer:*'",
         "no JACK input port to play to matches 'mixer:*' (use --channels for the physical playback ports)"),
        (.noSuchChannel(1, available: 0), "no capture channel 1: the JACK server has no physical capture ports",
         "no capture channel 1: the JACK server has no physical capture ports (use --port)"),
        (.noSuchChannel(3, available: 2), "no capture channel 3: the JACK server has 2 (1-2)", "no capture channel 3: the JACK server has 2 (1-2)"),
        (.jack(.noServer(server: "x")), "no JACK server named 'x' is running",
         "no JACK server named 'x' is running; start one, e.g. 'jackd -n x -d dummy'"),
        (.jack(.clientNamedLikeServer("x")), "the client name 'x' is the server's name; JACK 2 would lose its server socket",
         "the client name 'x' is the server's name; JACK 2 would lose its server socket (choose another --name)"),
        (.format(.bitDepthNotAvailable(format: "FLAC", requested: "float", allowed: [8, 16, 24])),
         "FLAC holds 8, 16 or 24-bit integer samples, not float",
         "FLAC holds 8, 16 or 24-bit integer samples, not float (use --bit-depth 16 or 24, or a .wav/.caf file)"),
        (.format(.noAACEncoder), "AAC cannot be written: libsndfile has no AAC encoder (ALAC in a .caf file, MP3, Opus and Vorbis can be)",
         "jcap cannot write AAC: libsndfile has no AAC encoder (use --format alac with .caf, or --format mp3/opus/vorbis)"),
        (.format(.unknownFormat("M4A")), "AAC cannot be written: libsndfile has no AAC encoder (ALAC in a .caf file, MP3, Opus and Vorbis can be)",
         "jcap cannot write AAC: libsndfile has no AAC encoder (use --format alac with .caf, or --format mp3/opus/vorbis)"),
        (.writeFailed(path: "a.wav", reason: "No space left on device"), "writing 'a.wav' failed: No space left on device",
         "writing 'a.wav' failed: No space left on device"),
    ] as [(CaptureError, String, String)])
    func advice(error: CaptureError, library: String, jcap: String) {
        #expect(error.description == library)
        #expect(CommandLineAdvice.message(for: error) == jcap)
    }

    @Test("the library's value errors name the value, never a flag; jcap names the flag the user typed (status 64)", arguments: [
        (StudioSessionError.badTakeCount(0), "bad number of takes 0: use 1 or more", "bad --takes '0': use 1 or more"),
        (.splitWithSeveralTakes(3), "a split take is 1 take, not 3 (each segment of a split is a take)",
         "bad --takes '3': use 1 with --split (each segment of a split is a take)"),
        (.splitNeedsScheduledStart, "a split take cannot wait for the transport, a trigger level or a cue (not supported together)",
         "a split take cannot wait for the transport, a trigger level or a cue (not supported together) (drop --split, or --transport and --trigger)"),
        (.overdubNeedsLatencyAlignment(take: 2), "overdub of take 2: the session must align to capture latency (align_latency = true)",
         "overdub of take 2: the session must align to capture latency (align_latency = true) (or --align-latency)"),
        (.takesNeedLength, "several takes back to back need a length for each", "several takes back to back need a length for each (add --for)"),
        (.capture(.triggerLevelOutOfRange(-200)), "trigger level -200.0 dBFS is out of range: use a level from -160 to 0 dBFS",
         "bad --trigger '-200.0dB': use a level from -160dB to 0dB"),
        (.capture(.badTriggerLevel("loud")), "bad trigger level 'loud': use a level in dBFS, like -40dB",
         "bad --trigger 'loud': use a level in dBFS, like -40dB"),
    ] as [(StudioSessionError, String, String)])
    func valueErrors(error: StudioSessionError, library: String, jcap: String) {
        #expect(error.description == library)
        #expect(!error.description.contains("--"))
        #expect(CommandLineAdvice.message(for: error) == jcap)
        #expect(JcapExitStatus(for: error) == .usage)
    }

    @Test("a flag's value the library refused: the flag and the value as typed, the library error's status")
    func refusedValue() throws {
        var refusal: CaptureError?
        do { _ = try SplitInterval(parsing: "25h") } catch { refusal = error }
        let error = CommandLineError.refusedValue(flag: "--split", value: "25h", try #require(refusal))
        #expect(CommandLineAdvice.message(for: error) == "bad --split '25h': a split is at most 24h (boundaries restart at local midnight)")
        #expect(JcapExitStatus(for: error) == .badTime)
        #expect(JcapExitStatus(for: CommandLineError.badOption(flag: "--volume", value: "2", expected: "a gain from 0 to 1")) == .usage)
        #expect(CommandLineAdvice.message(for: PlayerError.capture(.outputExists("a.wav"))) == "'a.wav' already exists (use --overwrite to replace it)")
    }

    @Test("every refused format combination: one line saying what is needed, to use or to drop, and status 16")
    func everyRefusal() {
        let depths: [Int?] = [nil] + Set(AudioFormat.allCases.flatMap { $0.bitDepths?.allowed ?? [] }).sorted()
        var refused = 0
        for container in FileContainer.allCases {
            for format in AudioFormat.allCases {
                for depth in depths {
                    for order in [nil] + Endianness.allCases.map(Optional.some) {
                        let settings = RecordingSettings(format: format, bitDepth: depth, endianness: order)
                        do {
                            _ = try settings.resolveFormat(forPath: "take." + container.rawValue)
                        } catch {
                            refused += 1
                            let message = CommandLineAdvice.message(for: error)
                            #expect(!message.contains("\n"))
                            #expect(message.contains("needs a .") || message.contains("use ") || message.contains("drop "),
                                    "\(container) \(settings): \(message)")
                            #expect(JcapExitStatus(for: error) == .unsupportedFormat)
                        }
                    }
                }
            }
        }
        #expect(refused > 1_000, "the cross product is mostly refusals: \(refused)")
    }
}
