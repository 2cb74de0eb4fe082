import Foundation
import HealthModel
import HealthSupport

/// The people of a data directory: a family, a partner, a coach's clients, each kept strictly apart.
///
/// A person is the unit of isolation. The data directory itself belongs to the household's owner (the person
/// `owner`, who administers the household); every other person has a data directory of their own under
/// `people/<id>/` — their own health store, their own access state (paired devices, grants, tokens, audit log), their own
/// server identity. Every principal belongs to exactly one person because it lives in exactly one access state, and a
/// service opened for one person never sees another's store: nothing answers across people.
///
/// ```swift
/// let household = Household(home: try HealthBridgeHome.resolve())
/// let alex = try household.add(name: "Alex")          // Person(id: "alex", name: "Alex", …)
/// let home = try household.home(of: "alex")           // …/healthbridge/people/alex, 0700
/// try household.people().map(\.id)                   // ["owner", "alex"]
/// ```
public struct Household: Sendable {
    /// One person of the household.
    public struct Person: Codable, Sendable, Hashable {
        /// A short lower-case name: letters, digits and `-`, as `--person` takes it.
        public var id: String
        /// The name as it was given.
        public var name: String
        public var created: Date

        public init(id: String, name: String, created: Date) {
            self.id = id; self.name = name; self.created = created
        }
    }

    /// The id of the household's owner, whose data is the data directory itself.
    public static let ownerID = "owner"
    /// The marker file of a person's data directory.
    static let personFile = "person.json"

    public let home: HealthBridgeHome

    public init(home: HealthBridgeHome) { self.home = home }

    /// `people/` under the data directory.
    public var peopleDirectory: URL { home.directory.appendingPathComponent("people", isDirectory: true) }

    /// Everyone: the owner first, then the others by id.
    public func people() throws -> [Person] {
        let fm = FileManager.default
        var found: [Person] = []
        if let entries = try? fm.contentsOfDirectory(atPath: peopleDirectory.path) {
            for entry in entries.sorted() {
                let file = peopleDirectory.appendingPathComponent(entry).appendingPathComponent(Self.personFile)
                guard let data = fm.contents(atPath: file.path),
                      let person = try? Self.decoder.decode(Person.self, from: data), person.id == entry else { continue }
                found.append(person)
            }
        }
        let created = (try? fm.attributesOfItem(atPath: home.directory.path)[.creationDate] as? Date) ?? nil
        return [Person(id: Self.ownerID, name: "Owner", created: created ?? Date(timeIntervalSince1970: 0))] + found
    }

    /// Adds a person: a data directory of their own (0700) with its marker. The id is `id` when given, else made
    /// from the name (`"Alex Martin"` → `alex-martin`).
    @discardableResult
    public func add(name: String, id: String? = nil, now: Date = Date()) throws -> Person {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.contains(where: \.isNewline) else {
            throw HealthError(.invalidArgument, "a person's name is 1–100 characters on one line", argument: "name")
        }
        let personID = try id.map(Self.checkID) ?? Self.checkID(Self.slug(trimmed))
        guard personID != Self.ownerID else {
            throw HealthError(.conflict, "'owner' is the household's owner, who always exists", argument: "id")
        }
        let directory = peopleDirectory.appendingPathComponent(personID, isDirectory: true)
        guard !FileManager.default.fileExists(atPath: directory.path) else {
            throw HealthError(.conflict, "a person with id '\(personID)' already exists; give another --id", argument: "id")
        }
        let person = Person(id: personID, name: trimmed, created: now)
        try HealthError.mappingFileErrors {
            try HealthBridgeHome(directory: peopleDirectory).createIfNeeded()
            try PrivateFile.createDirectory(directory)
            try PrivateFile.write(try Self.encoder.encode(person), to: directory.appendingPathComponent(Self.personFile))
        }
        return person
    }

    /// The data directory of a person (the data directory itself for `owner`); `HEALTH_NOT_FOUND` for no such person.
    public func home(of id: String) throws -> HealthBridgeHome {
        let personID = try Self.checkID(id)
        if personID == Self.ownerID { return home }
        let directory = peopleDirectory.appendingPathComponent(personID, isDirectory: true)
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(Self.personFile).path) else {
            throw HealthError(.notFound, "no person '\(personID)' in this household; `healthbridge people list` shows them",
                              argument: "person")
        }
        let personal = HealthBridgeHome(directory: directory)
        try HealthError.mappingFileErrors { try personal.createIfNeeded() }
        return personal
    }

    /// Removes a person and everything of theirs: their store, devices, grants and audit log.
    @discardableResult
    public func remove(_ id: String) throws -> Person {
        let personID = try Self.checkID(id)
        guard personID != Self.ownerID else {
            throw HealthError(.invalidArgument, "the household's owner cannot be removed", argument: "person")
        }
        let directory = try home(of: personID).directory
        let person = try people().first { $0.id == personID }
        try HealthError.mappingFileErrors { try FileManager.default.removeItem(at: directory) }
        return person ?? Person(id: personID, name: personID, created: Date())
    }

    /// `[a-z0-9][a-z0-9-]{0,39}`.
    static func checkID(_ id: String) throws(HealthError) -> String {
        let scalars = id.unicodeScalars
        let allowed = scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        guard let first = scalars.first, first != "-", allowed, scalars.count <= 40 else {
            throw HealthError(.invalidArgument,
                              "a person id is 1–40 lower-case letters, digits and '-', not starting with '-' (got '\(id.prefix(60))')",
                              argument: "person")
        }
        return id
    }

    /// A name as an id: lower-case ASCII letters and digits, other runs as `-`.
    static func slug(_ name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            .lowercased()
        var slug = ""
        for scalar in folded.unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return String(slug.prefix(40))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

extension HealthError {
    /// Runs file work, reporting a failure as `HEALTH_INTERNAL` with the path and what went wrong (no health data).
    static func mappingFileErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as HealthError {
            throw error
        } catch let error as PrivateFileError {
            throw HealthError(.internalError, error.description)
        } catch {
            throw HealthError(.internalError, "a household file could not be written: \(error.localizedDescription)")
        }
    }
}
