import Foundation
import HealthModel

/// Opaque page cursors: the request that made a page plus where the next page starts, so that the next call needs
/// only the cursor. Base64url JSON, tagged with the use case that issued it; a cursor is client data, so everything
/// read back from one is checked again.
enum ServiceCursor {
    struct Envelope<State: Codable>: Codable {
        var use: String
        var state: State
    }

    static func encode<State: Codable>(_ state: State, use: String) -> String {
        let data = (try? JSONEncoder.wire.encode(Envelope(use: use, state: state))) ?? Data()
        return Base64URL.encode(data)
    }

    static func decode<State: Codable>(_ cursor: String, as type: State.Type, use: String) throws(HealthError) -> State {
        guard cursor.utf8.count < 100_000, let data = Base64URL.decode(cursor),
              let tag = try? JSONDecoder().decode(Tag.self, from: data) else { throw invalid(use) }
        guard tag.use == use else {
            throw HealthError(.invalidArgument, "this cursor belongs to \(tag.use), not \(use): pass it back to the call that gave it, or leave cursor out")
        }
        guard let envelope = try? JSONDecoder().decode(Envelope<State>.self, from: data) else { throw invalid(use) }
        return envelope.state
    }

    struct Tag: Codable { var use: String }

    static func invalid(_ use: String) -> HealthError {
        HealthError(.invalidArgument,
                    "cursor is not valid: pass next_cursor exactly as the previous \(use) result gave it, or leave cursor out to start from the first page")
    }
}
