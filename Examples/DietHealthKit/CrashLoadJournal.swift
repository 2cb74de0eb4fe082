import Foundation

/// The app's own durable record of a bulk load (`crash-load.journal`): a line `try <id>` before an entry is written to
/// HealthKit and `done <id>` after HealthKit confirmed it, each appended and fsync'd before the app goes on. After a kill,
/// an id that was tried but not done may or may not have reached HealthKit: the app asks HealthKit before writing it
/// again. A line cut short by a kill (no newline) is ignored.
///
/// ```swift
/// let journal = try CrashLoadJournal(url: dir.appendingPathComponent("crash-load.journal"))
/// try journal.record(.tried, "load-7"); …; try journal.record(.done, "load-7")
/// ```
final class CrashLoadJournal {
    enum State: String {
        case tried = "try"
        case done
    }

    private(set) var done: Set<String> = []
    private(set) var tried: Set<String> = []
    private let handle: FileHandle

    init(url: URL) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw AppFailure("cannot create \(url.path)")
            }
        }
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        var lines = text.components(separatedBy: "\n")
        let torn = lines.removeLast()   // after the last newline: empty, or a line cut short
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let state = State(rawValue: String(parts[0])) else { continue }
            switch state {
            case .tried: tried.insert(String(parts[1]))
            case .done: done.insert(String(parts[1]))
            }
        }
        handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        if !torn.isEmpty { try append("\n") }
    }

    deinit { try? handle.close() }

    /// Appends `state id` and waits until it is on disk.
    func record(_ state: State, _ id: String) throws {
        try append("\(state.rawValue) \(id)\n")
        switch state {
        case .tried: tried.insert(id)
        case .done: done.insert(id)
        }
    }

    private func append(_ text: String) throws {
        try handle.write(contentsOf: Data(text.utf8))
        try handle.synchronize()
    }
}
