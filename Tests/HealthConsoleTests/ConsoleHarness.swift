import Foundation
import HealthAccess
import HealthBridgeTesting
import HealthConsole
import HealthService
import HealthStore
import HealthSupport
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import PairedAPI

/// A console on a temporary data directory with demo data, served on a loopback address (127.0.0.1 unless a test
/// names another, as `serve` does with the install's own) at a free port, and a raw HTTP/1.1 client that sends exactly
/// the headers a test names (Host and Origin included).
struct ConsoleHarness {
    let home: HealthBridgeHome
    let service: HealthService
    let state: AccessStore
    let console: Console
    let port: Int
    /// The loopback address the console is bound to.
    let address: String
    let task: Task<Void, any Error>
    /// The household: every person's service.
    let household: HouseholdServices
    /// The household's data directory (the owner's).
    let root: URL

    /// A console for `person` (the owner by default) of a household whose other people are `others` (ids), each
    /// with `days` of demo data of their own (another seed each, so no two have the same numbers).
    static func start(days: Int = 14, maxUploadBytes: Int = 64 << 10, address: String = "127.0.0.1",
                      others: [String] = [], person: String = Household.ownerID) async throws -> ConsoleHarness
    {
        let directory = try TemporaryHome("console").url
        let householdHome = HealthBridgeHome(directory: directory)
        try householdHome.createIfNeeded()
        let household = Household(home: householdHome)
        for (index, id) in others.enumerated() {
            try household.add(name: id.capitalized, id: id)
            let store = try SQLiteHealthStore(location: .file(try household.home(of: id).storeURL))
            try await DemoWorld(days: days, seed: 100 + UInt64(index)).populate(store)
        }
        let home = try household.home(of: person)
        let store = try SQLiteHealthStore(location: .file(home.storeURL))
        if person == Household.ownerID { try await DemoWorld(days: days).populate(store) }
        let state = try AccessStore.open(home: home.directory)
        let service = try await HealthService.open(store: store, access: state)
        let services = HouseholdServices(household: household) { id in
            let personal = try household.home(of: id)
            return try await HealthService.open(store: try SQLiteHealthStore(location: .file(personal.storeURL)),
                                                access: try AccessStore.open(home: personal.directory))
        }
        try await services.use(service, for: person)
        let console = Console(service: service, home: home,
                              configuration: .init(port: 0, host: address, maxUploadBytes: maxUploadBytes),
                              pairing: ConsolePairing(fingerprint: { try ServerIdentity.loadOrCreate(home: home.directory).0.fingerprint },
                                                      listening: { nil },
                                                      fallback: { .init(host: "192.0.2.10", port: 8443) }),
                              household: services, person: person,
                              logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let router = Router()
        console.addRoutes(to: router)
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname(address, port: 0)),
                              onServerRunning: { channel in sink.yield(channel.localAddress?.port ?? 0) })
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        console.setPort(port)
        return ConsoleHarness(home: home, service: service, state: state, console: console, port: port,
                              address: address, task: task, household: services, root: directory)
    }

    func stop() {
        task.cancel()
        try? FileManager.default.removeItem(at: root)
    }

    var host: String { "\(address):\(port)" }
    var origin: String { "http://\(address):\(port)" }

    struct Reply {
        var status: Int
        var headers: [(String, String)]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// One request on a new connection (`Connection: close`), the whole answer.
    func send(_ method: String, _ path: String, host: String? = nil, headers: [(String, String)] = [],
              body: [UInt8] = []) async throws -> Reply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? self.host)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: address, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let raw = try await channel.executeThenClose { inbound, outbound in
            var buffer = ByteBuffer(string: head)
            buffer.writeBytes(body)
            try await outbound.write(buffer)
            var reply = [UInt8]()
            for try await chunk in inbound { reply += chunk.readableBytesView }
            return String(decoding: reply, as: UTF8.self)
        }
        return Self.parse(raw)
    }

    static func parse(_ raw: String) -> Reply {
        let parts = raw.components(separatedBy: "\r\n\r\n")
        let lines = (parts.first ?? "").components(separatedBy: "\r\n")
        let status = lines.first.flatMap { line in Int(line.split(separator: " ").dropFirst().first ?? "") } ?? 0
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = parts.dropFirst().joined(separator: "\r\n\r\n")
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") }) {
            body = dechunk(body)
        }
        return Reply(status: status, headers: headers, body: body)
    }

    static func dechunk(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let end = rest.range(of: "\r\n") {
            guard let size = Int(rest[..<end.lowerBound], radix: 16), size > 0 else { break }
            let start = end.upperBound
            let utf8 = rest.utf8
            guard let stop = utf8.index(start, offsetBy: size, limitedBy: utf8.endIndex) else { break }
            out += String(rest[start..<stop])
            rest = rest[stop...].dropFirst(2)
        }
        return out
    }

    /// Signs in with a fresh one-time key; returns the cookie header value and the CSRF token of the pages.
    func signIn() async throws -> (cookie: String, csrf: String) {
        let key = try state.issueConsoleKey()
        let login = try await send("GET", "/login?key=\(key)")
        guard let setCookie = login.header("Set-Cookie"), let pair = setCookie.split(separator: ";").first else {
            throw HarnessError.noCookie(login.status)
        }
        let cookie = String(pair)
        let page = try await send("GET", "/access", headers: [("Cookie", cookie)])
        guard let range = page.body.range(of: "name=\"csrf\" value=\"") else { throw HarnessError.noCSRF }
        let csrf = page.body[range.upperBound...].prefix { $0 != "\"" }
        return (cookie, String(csrf))
    }

    enum HarnessError: Error { case noCookie(Int), noCSRF }
}
