import Foundation
import HealthAPI
import HealthSupport
import NIOCore
import NIOPosix
import Synchronization

/// A HealthBridge export server found by DNS-SD.
public struct DiscoveredService: Sendable, Equatable, Codable {
    /// The service instance name, e.g. `HealthBridge on studio`.
    public var instance: String
    /// The SRV target host, e.g. `studio.local`.
    public var host: String
    public var port: Int
    /// The host's addresses from A/AAAA records, else the address the answer came from.
    public var addresses: [String]
    /// TXT entries: `fp` (the first 16 hex digits of the certificate fingerprint), `api` (the API version).
    public var txt: [String: String]

    public init(instance: String, host: String, port: Int, addresses: [String], txt: [String: String]) {
        self.instance = instance; self.host = host; self.port = port; self.addresses = addresses; self.txt = txt
    }
}

/// One-shot DNS-SD browsing: sends an mDNS question for `_healthsync._tcp.local` PTR records (a "legacy unicast"
/// query from an ephemeral port, so responders answer to that port) and collects the answers until a timeout.
public enum ServiceBrowser {
    public static let multicastGroup = "224.0.0.251"
    public static let mdnsPort = 5353

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// - Parameters:
    ///   - destination: where to send the question (default the mDNS group 224.0.0.251:5353); tests use a
    ///     responder's unicast loopback address.
    public static func browse(serviceType: String = PairedAPIProtocol.serviceType, timeout: Duration = .seconds(2),
                              destination: SocketAddress? = nil) async throws -> [DiscoveredService] {
        let target = try destination ?? SocketAddress(ipAddress: multicastGroup, port: mdnsPort)
        let collected = Mutex<[(DNSMessage, SocketAddress)]>([])
        let bindHost = target.protocol == .inet6 ? "::" : (isLoopback(target) ? "127.0.0.1" : "0.0.0.0")
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Collector(sink: { message, sender in
                            collected.withLock { $0.append((message, sender)) }
                        }))
                    }
                }
                .bind(host: bindHost, port: 0).get()
        } catch {
            throw Failure(description: "cannot open a UDP socket for mDNS: \(error)")
        }
        let service = DNSName(serviceType).labels + ["local"]
        let question = DNSMessage(id: UInt16.random(in: 1...UInt16.max), flags: 0,
                                  questions: [DNSQuestion(name: DNSName(labels: service), type: DNSRecordType.ptr.rawValue,
                                                          unicastResponse: true)])
        let bytes = question.encode()
        do {
            // Twice, a third of the timeout apart: UDP may drop one.
            for attempt in 0..<2 {
                if attempt > 0 { try await Task.sleep(for: timeout / 3) }
                try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: bytes)))
            }
            try await Task.sleep(for: timeout - timeout / 3)
        } catch {
            try? await channel.close()
            throw Failure(description: "cannot send the mDNS question to \(target): \(error). Multicast may not be routed on this machine (no network, or no route to 224.0.0.0/4).")
        }
        try? await channel.close()
        return services(in: collected.withLock { $0 }, serviceType: DNSName(labels: service))
    }

    /// Assembles PTR → SRV/TXT → A answers into services.
    public static func services(in messages: [(DNSMessage, SocketAddress)], serviceType: DNSName) -> [DiscoveredService] {
        var instances: [DNSName: SocketAddress] = [:]
        var srv: [DNSName: (UInt16, DNSName)] = [:]
        var txt: [DNSName: [String]] = [:]
        var addresses: [DNSName: [String]] = [:]
        var order: [DNSName] = []
        for (message, sender) in messages where message.isResponse {
            for record in message.answers + message.additionals {
                switch record.data {
                case .ptr(let instance) where record.name == serviceType && record.ttl > 0:
                    if instances[instance] == nil { order.append(instance) }
                    instances[instance] = sender
                case .srv(_, _, let port, let target):
                    srv[record.name] = (port, target)
                case .txt(let entries):
                    txt[record.name] = entries
                case .a(let bytes):
                    addresses[record.name, default: []].append(bytes.map(String.init).joined(separator: "."))
                case .aaaa(let bytes):
                    addresses[record.name, default: []].append(ipv6String(bytes))
                default:
                    break
                }
            }
        }
        return order.compactMap { instance in
            guard let (port, target) = srv[instance] else { return nil }
            var found = Array(Set(addresses[target] ?? [])).sorted()
            if found.isEmpty, let ip = instances[instance]?.ipAddress { found = [ip] }
            var fields: [String: String] = [:]
            for entry in txt[instance] ?? [] {
                // RFC 6763 §6.4: `key=value`, `key` alone (a boolean), and no key at all (`=…`, empty) is ignored.
                let key: Substring, value: Substring
                if let equals = entry.firstIndex(of: "=") {
                    key = entry[..<equals]
                    value = entry[entry.index(after: equals)...]
                } else {
                    key = entry[...]
                    value = ""
                }
                guard !key.isEmpty, fields[String(key)] == nil else { continue }
                fields[String(key)] = String(value)
            }
            return DiscoveredService(instance: instance.labels.first ?? instance.description, host: target.description,
                                     port: Int(port), addresses: found, txt: fields)
        }
    }

    static func isLoopback(_ address: SocketAddress) -> Bool {
        address.ipAddress.map(Loopback.isLoopbackAddress) == true
    }

    static func ipv6String(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let sink: @Sendable (DNSMessage, SocketAddress) -> Void
        init(sink: @escaping @Sendable (DNSMessage, SocketAddress) -> Void) { self.sink = sink }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let bytes = Array(envelope.data.readableBytesView)
            if let message = try? DNSMessage.decode(bytes) { sink(message, envelope.remoteAddress) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {}
    }
}
