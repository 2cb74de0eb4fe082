import Foundation

/// Where a ``SQLiteHealthStore`` keeps its database.
public enum StoreLocation: Sendable, Hashable {
    /// A file, opened in WAL mode: one writer, many concurrent readers, shared with other processes.
    case file(URL)
    /// A private in-memory database, for tests and throwaway work. Same schema and semantics as a file.
    case inMemory
}
