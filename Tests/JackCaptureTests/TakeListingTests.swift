import Foundation
import Testing
@testable import JackCapture

@Suite("Take listing")
struct TakeListingTests {
    let utc = TimeZone(identifier: "UTC")!

    var entries: [TakeLogEntry] {
        [
            TakeLogEntry(take: 1, status: .complete, startFrame: 10, startTime: "2026-11-22T14:03:07.123456Z",
                         sampleRate: 48_000, frames: 2_880_000,
                         files: [TakeLogFile(path: "take-001-Kick In.wav", tracks: ["Kick In"], frames: 2_880_000),
                                 TakeLogFile(path: "take-001-Snare.wav", tracks: ["Snare"], frames: 2_880_000)],
                         tracks: [TakeLogTrack(name: "Kick In", source: "system:capture_1", highestPeakDBFS: -3.25, clippedSamples: 0),
                                  TakeLogTrack(name: "Snare", source: "system:capture_2", highestPeakDBFS: -12, clippedSamples: 0)],
                         note: "keeper"),
            TakeLogEntry(take: 2, status: .deleted, startTime: "2026-11-22T14:10:00.000000Z", sampleRate: 48_000,
                         frames: 48_000, tracks: [TakeLogTrack(name: "Kick In", source: "system:capture_1")]),
            TakeLogEntry(take: 10, status: .framesLost, startTime: "2026-11-22T15:00:00.500000Z", sampleRate: 48_000,
                         frames: 172_800_000 + 24,
                         tracks: (1...6).map { TakeLogTrack(name: "in \($0)", source: "system:capture_\($0)",
                                                             highestPeakDBFS: 0, clippedSamples: 3) },
                         xruns: [TakeLogSpan(position: 100, frames: 256)],
                         lost: [TakeLogSpan(position: 100, frames: 256), TakeLogSpan(position: 9_000, frames: 224)],
                         note: "two\nlines"),
            TakeLogEntry(take: 11, status: .interrupted, sampleRate: 0, frames: 4_800),
            TakeLogEntry(take: 12, status: .discarded, sampleRate: 44_100, frames: 0),
        ]
    }

    @Test("one line a take, newest last: number, local start, length, frames, tracks, peak, problems, note")
    func lines() {
        let lines = TakeListing.lines(entries, timeZone: utc, showsFrames: true)
        #expect(lines == [
            " 1  2026-11-22 14:03:07  0:01:00.000    2880000 frames  2 tracks: Kick In, Snare  peak -3.2 dBFS  \"keeper\"",
            " 2  2026-11-22 14:10:00  0:00:01.000      48000 frames  1 track: Kick In  deleted",
            "10  2026-11-22 15:00:00  1:00:00.000  172800024 frames  6 tracks  peak 0.0 dBFS, 18 clipped  480 frames lost in 2 spans, 1 xrun  \"two lines\"",
            "11  -                              -       4800 frames  interrupted",
            "12  -                    0:00:00.000          0 frames  discarded",
        ])
    }

    @Test("without -v a length is a time only; frames where no rate times it")
    func linesWithoutFrames() {
        #expect(TakeListing.lines(Array(entries.prefix(2)), timeZone: utc) == [
            "1  2026-11-22 14:03:07  0:01:00.000  2 tracks: Kick In, Snare  peak -3.2 dBFS  \"keeper\"",
            "2  2026-11-22 14:10:00  0:00:01.000  1 track: Kick In  deleted",
        ])
        #expect(TakeListing.lines([entries[3]], timeZone: utc) == ["11  -  -  4800 frames  interrupted"])
    }

    @Test("a take's mark follows its frames; the JSON listing has it as the log does", arguments: [
        (TakeMark.circled, "circled", "circled"), (.falseStart, "false start", "false-start"), (.noGood, "no good", "no-good"),
    ])
    func marks(mark: TakeMark, shown: String, spelled: String) throws {
        var marked = entries[0]
        marked.mark = mark
        #expect(TakeListing.lines([marked], timeZone: utc, showsFrames: true) == [
            "1  2026-11-22 14:03:07  0:01:00.000  2880000 frames  \(shown)  2 tracks: Kick In, Snare  peak -3.2 dBFS  \"keeper\"",
        ])
        let json = TakeListing.json([marked])
        #expect(json.contains(",\"mark\":\"\(spelled)\",\"note\":\"keeper\"}"))
        #expect(try JSONDecoder().decode([TakeLogEntry].self, from: Data(json.utf8)) == [marked])
    }

    @Test("a track that peaked below -90 dBFS while another carried signal is a dead track")
    func deadTracks() {
        var take = entries[0]
        take.tracks[1].highestPeakDBFS = -160
        #expect(TakeListing.lines([take], timeZone: utc, showsFrames: true) == [
            "1  2026-11-22 14:03:07  0:01:00.000  2880000 frames  2 tracks: Kick In, Snare  peak -3.2 dBFS  dead track: Snare  \"keeper\"",
        ])
        take.tracks.append(TakeLogTrack(name: "Tom", source: "system:capture_3", highestPeakDBFS: -95))
        #expect(TakeListing.deadTracks(take) == ["Snare", "Tom"])
        take.tracks[0].highestPeakDBFS = -120
        #expect(TakeListing.deadTracks(take) == [], "every track silent: the take is silent, no track is dead")
        #expect(TakeListing.deadTracks(entries[1]) == [], "no peaks logged: nothing to tell")
    }

    @Test("peaks are signed, silence is -inf")
    func signedPeaks() {
        var take = entries[0]
        take.tracks[0].highestPeakDBFS = 3.04
        #expect(TakeListing.lines([take], timeZone: utc).first?.contains("peak +3.0 dBFS") == true)
        take.tracks = take.tracks.map { var track = $0; track.highestPeakDBFS = -160; return track }
        #expect(TakeListing.lines([take], timeZone: utc).first?.contains("peak -inf dBFS") == true)
    }

    @Test("markers are listed at their times, before the note")
    func markers() {
        var take = entries[0]
        take.markers = [TakeLogMarker(position: 96_000, sampleRate: 48_000), TakeLogMarker(position: 1_440_024)]
        #expect(TakeListing.lines([take], timeZone: utc, showsFrames: true) == [
            "1  2026-11-22 14:03:07  0:01:00.000  2880000 frames  2 tracks: Kick In, Snare  peak -3.2 dBFS  "
                + "2 markers 0:00:02.000, 0:00:30.000  \"keeper\"",
        ])
    }

    @Test("start times are shown in the time zone asked for")
    func localTime() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(TakeListing.lines([entries[0]], timeZone: tokyo).first?.contains("2026-11-22 23:03:07") == true)
    }

    @Test("a take without a sample rate is timed at the default one, if given")
    func defaultRate() {
        #expect(TakeListing.lines([entries[3]], defaultSampleRate: 48_000, timeZone: utc).first?.contains("0:00:00.100") == true)
    }

    @Test("lengths in h:mm:ss.mmm, rounded down")
    func durations() {
        #expect(TakeListing.duration(frames: 0, sampleRate: 48_000) == "0:00:00.000")
        #expect(TakeListing.duration(frames: 47, sampleRate: 48_000) == "0:00:00.000")
        #expect(TakeListing.duration(frames: 48, sampleRate: 48_000) == "0:00:00.001")
        #expect(TakeListing.duration(frames: 48_000 * 3_723 + 24_000, sampleRate: 48_000) == "1:02:03.500")
        #expect(TakeListing.duration(frames: .max, sampleRate: 1) == "2562047788015215:30:07.000")
        #expect(TakeListing.duration(frames: 5, sampleRate: 0) == "-")
    }

    @Test("the JSON listing is an array of the entries, with the log's keys, and reads back")
    func json() throws {
        let text = TakeListing.json(entries)
        let decoded = try JSONDecoder().decode([TakeLogEntry].self, from: Data(text.utf8))
        #expect(decoded == entries)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(objects.first.map { Set($0.keys) } == ["take", "status", "start_frame", "start_time", "sample_rate", "frames",
                                                        "files", "tracks", "xruns", "lost", "pauses", "note"])
        #expect(text.split(separator: "\n").count == entries.count + 2)
        #expect(TakeListing.json([]) == "[]")
    }
}
