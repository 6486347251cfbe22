/// How the engineer marked a take, as field recorders do: the take to use (`circled`, the circle
/// drawn round its number on a paper log), one that broke down at once (`false-start`), or one
/// not to use (`no-good`). In the take log's `mark` key; `TakeLog.setMark` sets and clears it.
public enum TakeMark: String, Codable, Sendable, CaseIterable {
    case circled
    case falseStart = "false-start"
    case noGood = "no-good"
}
