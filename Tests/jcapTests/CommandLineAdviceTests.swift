import JackCapture
import Testing
@testable import jcap

@Suite("Library errors with jcap's advice")
struct CommandLineAdviceTests {
    @Test("the library's description, with the flag or tool to use added", arguments: [
        (CaptureError.outputExists("take.wav"), "'take.wav' already exists", "'take.wav' already exists (use --overwrite to replace it)"),
        (.noPortMatches("synth:*"), "no JACK output port matches 'synth:*'", "no JACK output port matches 'synth:*' (jack_lsp lists them)"),
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
