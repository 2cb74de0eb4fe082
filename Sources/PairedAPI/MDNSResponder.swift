import HealthAPI
import PairedAPIClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A minimal mDNS responder (RFC 6762/6763) for one service instance of `_healthsync._tcp.local`: answers PTR, SRV,
/// TXT and A questions, announces on start and on ``announce()``, says goodbye (TTL 0) on ``withdraw()`` and
/// ``stop()``. Needs no Avahi or Bonjour library: a UDP socket on port 5353 joined to 224.0.0.251.
///
/// Where the multicast socket cannot be opened (no network, port taken without SO_REUSEPORT, no multicast route),
/// ``start()`` throws and says why; the API keeps serving without advertisement.
public final class MDNSResponder: Sendable {
    public struct Configuration: Sendable {
        /// The instance label, e.g. `HealthBridge on studio`.
        public var instanceName: String
        /// The SRV target, e.g. `studio.local`.
        public var hostName: String
        public var port: Int
        /// `key=value` TXT entries: `fp=<first 16 hex digits of the fingerprint>`, `api=1`.
        public var txt: [String]
        /// IPv4 addresses for A answers (nil: this machine's non-loopback IPv4 addresses at answer time).
        public var addresses: [String]?
        public var serviceType: String = PairedAPIProtocol.serviceType
        /// Where to listen: `0.0.0.0:5353` with multicast (default); tests use `127.0.0.1:0` without.
        public var bindHost = "0.0.0.0"
        public var bindPort = ServiceBrowser.mdnsPort
        public var multicast = true
        public var ttl: UInt32 = 120
        /// Which query sources get an answer: by default only on-link ones (RFC 6762 §11).
        public var onLink = OnLinkFilter()

        public init(instanceName: String, hostName: String, port: Int, txt: [String], addresses: [String]? = nil) {
            self.instanceName = instanceName; self.hostName = hostName; self.port = port; self.txt = txt
            self.addresses = addresses
        }
    }

    let configuration: Configuration
    let logger: Logger
    private let channel = Mutex<(any Channel)?>(nil)
    private let active = Mutex(false)

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    var serviceName: DNSName { DNSName(labels: DNSName(configuration.serviceType).labels + ["local"]) }
    var instanceFQDN: DNSName { serviceName.prepending(String(configuration.instanceName.prefix(63))) }
    var hostFQDN: DNSName { DNSName(configuration.hostName) }
    static let servicesMeta = DNSName(labels: ["_services", "_dns-sd", "_udp", "local"])
    var group: SocketAddress { try! SocketAddress(ipAddress: ServiceBrowser.multicastGroup, port: ServiceBrowser.mdnsPort) }

    /// The local address the responder listens on (tests send their questions there).
    public var localAddress: SocketAddress? { channel.withLock { $0?.localAddress } }

    /// Opens the socket, joins the group and announces.
    public func start() async throws {
        let configuration = self.configuration
        let bootstrap = DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(QueryHandler(responder: self))
                }
            }
        let opened: any Channel
        do {
            opened = try await bootstrap.bind(host: configuration.bindHost, port: configuration.bindPort).get()
        } catch {
            throw ServerIdentityError.startup("cannot listen on UDP \(configuration.bindHost):\(configuration.bindPort) for mDNS (\(error)); another responder may hold it without SO_REUSEPORT")
        }
        if configuration.multicast {
            do {
                guard let multicast = opened as? any MulticastChannel else {
                    throw ServerIdentityError.startup("the UDP channel does not support multicast")
                }
                try await multicast.joinGroup(group).get()
                try await opened.setOption(.ipOption(.ip_multicast_ttl), value: 255).get()
            } catch {
                try? await opened.close()
                throw ServerIdentityError.startup("cannot join the mDNS multicast group 224.0.0.251 (\(error)); this machine may have no multicast route or no network")
            }
        }
        channel.withLock { $0 = opened }
        await announce()
    }

    /// Starts answering and sends two unsolicited announcements, a second apart.
    public func announce() async {
        active.withLock { $0 = true }
        guard configuration.multicast else { return }
        let message = DNSMessage(id: 0, flags: DNSMessage.responseFlags, answers: records(ttl: configuration.ttl, unicast: false))
        await send(message, to: group)
        try? await Task.sleep(for: .seconds(1))
        if active.withLock({ $0 }) { await send(message, to: group) }
    }

    /// Stops answering and tells caches to forget the service (TTL 0).
    public func withdraw() async {
        let wasActive = active.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        guard wasActive, configuration.multicast else { return }
        let goodbye = DNSMessage(id: 0, flags: DNSMessage.responseFlags, answers: records(ttl: 0, unicast: false))
        await send(goodbye, to: group)
    }

    public func stop() async {
        await withdraw()
        let closing = channel.withLock { value -> (any Channel)? in
            defer { value = nil }
            return value
        }
        try? await closing?.close()
    }

    var isActive: Bool { active.withLock { $0 } }

    func send(_ message: DNSMessage, to address: SocketAddress) async {
        guard let channel = channel.withLock({ $0 }) else { return }
        do {
            try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: message.encode())))
        } catch {
            logger.debug("mDNS send failed: \(error)")
        }
    }

    // MARK: Answers

    var addresses: [[UInt8]] {
        let texts: [String]
        if let fixed = configuration.addresses {
            texts = fixed
        } else {
            texts = Self.localIPv4Addresses()
        }
        return texts.compactMap { text in
            let parts = text.split(separator: ".").compactMap { UInt8($0) }
            return parts.count == 4 ? parts : nil
        }
    }

    /// PTR + SRV + TXT + A, with the cache-flush bit on the unique records (not for legacy unicast answers).
    func records(ttl: UInt32, unicast: Bool) -> [DNSRecord] {
        let flush = !unicast
        var result = [
            DNSRecord(name: serviceName, data: .ptr(instanceFQDN), ttl: ttl),
            DNSRecord(name: instanceFQDN, data: .srv(priority: 0, weight: 0, port: UInt16(configuration.port), target: hostFQDN),
                      ttl: ttl, cacheFlush: flush),
            DNSRecord(name: instanceFQDN, data: .txt(configuration.txt), ttl: ttl, cacheFlush: flush),
        ]
        for address in addresses {
            result.append(DNSRecord(name: hostFQDN, data: .a(address), ttl: ttl, cacheFlush: flush))
        }
        return result
    }

    /// The answer to a query, or nil when none of its questions is ours.
    func answer(_ query: DNSMessage, legacyUnicast: Bool) -> DNSMessage? {
        guard !query.isResponse, isActive else { return nil }
        let ttl = legacyUnicast ? min(configuration.ttl, 10) : configuration.ttl
        let all = records(ttl: ttl, unicast: legacyUnicast)
        var answers: [DNSRecord] = []
        let any = DNSRecordType.any.rawValue
        for question in query.questions {
            if question.name == serviceName, question.type == DNSRecordType.ptr.rawValue || question.type == any {
                answers += all
            } else if question.name == instanceFQDN {
                answers += all.filter { $0.name == instanceFQDN && (question.type == any || $0.data.type == question.type) }
                answers += all.filter { $0.name == hostFQDN }
            } else if question.name == hostFQDN, question.type == DNSRecordType.a.rawValue || question.type == any {
                answers += all.filter { $0.name == hostFQDN }
            } else if question.name == Self.servicesMeta, question.type == DNSRecordType.ptr.rawValue || question.type == any {
                answers.append(DNSRecord(name: Self.servicesMeta, data: .ptr(serviceName), ttl: ttl))
            }
        }
        guard !answers.isEmpty else { return nil }
        var unique: [DNSRecord] = []
        for record in answers where !unique.contains(record) { unique.append(record) }
        // Legacy unicast answers repeat the id and the questions (RFC 6762 §6.7).
        return DNSMessage(id: legacyUnicast ? query.id : 0, flags: DNSMessage.responseFlags,
                          questions: legacyUnicast ? query.questions : [], answers: unique)
    }

    /// Non-loopback IPv4 addresses of the interfaces that are up.
    public static func localIPv4Addresses() -> [String] {
        let devices = (try? System.enumerateDevices()) ?? []
        var result: [String] = []
        for device in devices {
            guard let address = device.address, address.protocol == .inet, let ip = address.ipAddress,
                  !ip.hasPrefix("127.") else { continue }
            if !result.contains(ip) { result.append(ip) }
        }
        return result
    }

    final class QueryHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let responder: MDNSResponder

        init(responder: MDNSResponder) { self.responder = responder }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            // Off-link sources get nothing: no reflection of a 40-byte query into a 300-byte answer across networks.
            guard responder.configuration.onLink.accepts(envelope.remoteAddress) else { return }
            guard envelope.data.readableBytes <= 9000,
                  let query = try? DNSMessage.decode(Array(envelope.data.readableBytesView)) else { return }
            let sourcePort = envelope.remoteAddress.port ?? 0
            let legacy = sourcePort != ServiceBrowser.mdnsPort
            guard let reply = responder.answer(query, legacyUnicast: legacy) else { return }
            let unicast = legacy || query.questions.contains(where: \.unicastResponse) || !responder.configuration.multicast
            let destination = unicast ? envelope.remoteAddress : responder.group
            context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: destination,
                                                                    data: ByteBuffer(bytes: reply.encode()))), promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {}
    }
}
