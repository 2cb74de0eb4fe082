import ArgumentParser
import HealthAPI
import PairedAPIClient
import Foundation

/// Where the client keeps its paired-server record: `<home>/client/paired-server.json` (0600, directory 0700).
struct ClientOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions
    @Option(help: "Seconds to wait for the server.") var timeout = 30

    func recordStore() throws -> PairedServerStore {
        PairedServerStore(directory: try store.resolveHome().directory.appendingPathComponent("client", isDirectory: true))
    }

    func paired() throws -> PairedServer {
        guard let record = try recordStore().load() else {
            throw PairedAPIClientError.notPaired("not paired with a server yet: run `healthbridge pair --qr '<json>'` with the payload `healthbridge pair-code` prints on the server")
        }
        return record
    }

    func remote() throws -> PairedAPIRemote {
        PairedAPIRemote(server: try paired(), timeout: .seconds(timeout))
    }
}

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair this machine with an export server, pinning its certificate fingerprint.",
        discussion: """
            Give the QR payload (`--qr '<json>'`, or `--qr @file`, or `--qr -` for stdin), or all of --host, --port, \
            --code and --fingerprint. The fingerprint is checked before the code is sent, and on every later connection.
            """)

    @OptionGroup var client: ClientOptions
    @Option(help: "The JSON payload of the pairing QR code.") var qr: String?
    @Option(help: "Server host or address.") var host: String?
    @Option(help: "Server port.") var port: Int?
    @Option(help: "One-time pairing code.") var code: String?
    @Option(help: "SHA-256 fingerprint of the server certificate (64 hex digits; colons allowed).") var fingerprint: String?
    @Option(help: "The name this client shows in `healthbridge clients list` on the server.")
    var name = ProcessInfo.processInfo.hostName
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if qr == nil, host == nil || port == nil || code == nil || fingerprint == nil {
            throw ValidationError("give --qr '<json>', or all of --host, --port, --code and --fingerprint")
        }
        if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
        if let fingerprint, CertificateFingerprint.normalize(fingerprint) == nil {
            throw ValidationError("--fingerprint must be a SHA-256 fingerprint: 64 hex digits, with or without colons")
        }
    }

    func run() async throws {
        var target: (host: String, port: Int, fingerprint: String, code: String)
        if let qr {
            let text: String
            if qr == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else if qr.hasPrefix("@") {
                text = try String(contentsOfFile: String(qr.dropFirst()), encoding: .utf8)
            } else {
                text = qr
            }
            guard let payload = try? JSONDecoder().decode(PairingPayload.self, from: Data(text.utf8)) else {
                throw ValidationError("--qr is not a pairing payload: expected {\"host\",\"port\",\"fingerprint\",\"code\",\"expires\"}")
            }
            target = (host ?? payload.host, port ?? payload.port, fingerprint ?? payload.fingerprint, code ?? payload.code)
        } else {
            target = (host!, port!, fingerprint!, code!)
        }
        let record = try await PairedAPIRemote.pair(host: target.host, port: target.port, fingerprint: target.fingerprint,
                                                 code: target.code, clientName: String(name.prefix(64)),
                                                 timeout: .seconds(client.timeout))
        let store = try client.recordStore()
        try store.save(record)
        if json {
            try Output.json(["host": AnyEncodable(record.host), "port": AnyEncodable(record.port),
                             "fingerprint": AnyEncodable(record.fingerprint), "clientId": AnyEncodable(record.clientId),
                             "deviceName": AnyEncodable(record.deviceName), "record": AnyEncodable(store.fileURL.path)])
            return
        }
        print("Paired with \(record.deviceName ?? record.host) at \(record.host):\(record.port) as client \(record.clientId).")
        print("Pinned certificate SHA-256: \(record.fingerprint)")
        print("Record (with the token) kept in \(store.fileURL.path), mode 0600.")
    }
}
