import Dispatch
import Foundation
import Synchronization

/// The GPX files to read, in the order the XML names them: filled by the parse thread, emptied by the route thread.
final class RouteQueue: Sendable {
    private struct State {
        var items: [(route: UUID, path: String)] = []
        var head = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// One signal per item pushed, and one for `close()`.
    private let available = DispatchSemaphore(value: 0)

    func push(_ route: UUID, path: String) {
        state.withLock { $0.items.append((route, path)) }
        available.signal()
    }

    /// No more items: `next()` returns nil once the queue is empty.
    func close() {
        state.withLock { $0.closed = true }
        available.signal()
    }

    /// The next route to read, waiting for one; nil when the queue is closed and empty.
    func next() -> (route: UUID, path: String)? {
        while true {
            available.wait()
            let (item, closed) = state.withLock { state -> ((route: UUID, path: String)?, Bool) in
                guard state.head < state.items.count else { return (nil, state.closed) }
                let item = state.items[state.head]
                state.head += 1
                if state.head > 1_024, state.head * 2 > state.items.count {
                    state.items.removeFirst(state.head)
                    state.head = 0
                }
                return (item, false)
            }
            if let item { return item }
            if closed {
                available.signal()  // every later call returns nil too
                return nil
            }
        }
    }
}
