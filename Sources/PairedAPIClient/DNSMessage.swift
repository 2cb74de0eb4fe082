import HealthAPI
/// A DNS name as its labels (`["HealthBridge on mac", "_healthsync", "_tcp", "local"]`), compared without case.
public struct DNSName: Sendable, Hashable, CustomStringConvertible {
    public var labels: [String]

    public init(labels: [String]) { self.labels = labels }

    /// Splits at dots: only for names whose labels contain none (service types, host names).
    public init(_ dotted: String) {
        labels = dotted.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
    }

    public var description: String { labels.joined(separator: ".") }

    public static func == (a: DNSName, b: DNSName) -> Bool {
        a.labels.count == b.labels.count && zip(a.labels, b.labels).allSatisfy { $0.lowercased() == $1.lowercased() }
    }

    public func hash(into hasher: inout Hasher) {
        for label in labels { hasher.combine(label.lowercased()) }
    }

    /// This name with `label` in front.
    public func prepending(_ label: String) -> DNSName { DNSName(labels: [label] + labels) }
}

/// Record types this minimal implementation reads and writes.
public enum DNSRecordType: UInt16, Sendable {
    case a = 1
    case ptr = 12
    case txt = 16
    case aaaa = 28
    case srv = 33
    case any = 255
}

public struct DNSQuestion: Sendable, Hashable {
    public var name: DNSName
    public var type: UInt16
    /// The mDNS "QU" bit: the asker wants a unicast answer.
    public var unicastResponse: Bool

    public init(name: DNSName, type: UInt16, unicastResponse: Bool = false) {
        self.name = name; self.type = type; self.unicastResponse = unicastResponse
    }
}

public enum DNSRecordData: Sendable, Hashable {
    case ptr(DNSName)
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    /// Each string is one `key=value` entry.
    case txt([String])
    case a([UInt8])
    case aaaa([UInt8])
    case other(type: UInt16, bytes: [UInt8])

    public var type: UInt16 {
        switch self {
        case .ptr: return DNSRecordType.ptr.rawValue
        case .srv: return DNSRecordType.srv.rawValue
        case .txt: return DNSRecordType.txt.rawValue
        case .a: return DNSRecordType.a.rawValue
        case .aaaa: return DNSRecordType.aaaa.rawValue
        case .other(let type, _): return type
        }
    }
}

public struct DNSRecord: Sendable, Hashable {
    public var name: DNSName
    public var data: DNSRecordData
    public var ttl: UInt32
    /// The mDNS cache-flush bit (set on unique records: SRV, TXT, A).
    public var cacheFlush: Bool

    public init(name: DNSName, data: DNSRecordData, ttl: UInt32, cacheFlush: Bool = false) {
        self.name = name; self.data = data; self.ttl = ttl; self.cacheFlush = cacheFlush
    }
}

/// A DNS message, as mDNS uses it (RFC 1035 wire format, RFC 6762 bits). Decoding is defensive: bounds-checked,
/// compression pointers may only point backwards, at most 64 records per section.
public struct DNSMessage: Sendable, Hashable {
    public var id: UInt16
    public var flags: UInt16
    public var questions: [DNSQuestion]
    public var answers: [DNSRecord]
    public var authorities: [DNSRecord]
    public var additionals: [DNSRecord]

    public static let responseFlags: UInt16 = 0x8400   // QR + AA

    public init(id: UInt16 = 0, flags: UInt16 = 0, questions: [DNSQuestion] = [], answers: [DNSRecord] = [],
                authorities: [DNSRecord] = [], additionals: [DNSRecord] = []) {
        self.id = id; self.flags = flags; self.questions = questions; self.answers = answers
        self.authorities = authorities; self.additionals = additionals
    }

    public var isResponse: Bool { flags & 0x8000 != 0 }

    public struct DecodingError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    // MARK: Encoding (no compression)

    /// The wire form. Always a valid message, whatever the values: labels are cut to 63 bytes and names to 255 (a
    /// label decoded from invalid UTF-8 grows when re-encoded), TXT data to 65,535 bytes, sections to 65,535 records.
    public func encode() -> [UInt8] {
        var out: [UInt8] = []
        func u16(_ v: UInt16) { out.append(UInt8(v >> 8)); out.append(UInt8(v & 0xFF)) }
        func u32(_ v: UInt32) { u16(UInt16(v >> 16)); u16(UInt16(v & 0xFFFF)) }
        func name(_ n: DNSName, into buffer: inout [UInt8]) {
            var total = 0
            for label in n.labels {
                let bytes = Array(label.utf8.prefix(63))
                guard !bytes.isEmpty else { continue }  // an empty label would end the name early
                guard total + bytes.count + 1 <= 255 else { break }
                buffer.append(UInt8(bytes.count))
                buffer += bytes
                total += bytes.count + 1
            }
            buffer.append(0)
        }
        let limit = Int(UInt16.max)
        let questions = self.questions.prefix(limit), answers = self.answers.prefix(limit)
        let authorities = self.authorities.prefix(limit), additionals = self.additionals.prefix(limit)
        u16(id); u16(flags)
        u16(UInt16(questions.count)); u16(UInt16(answers.count)); u16(UInt16(authorities.count)); u16(UInt16(additionals.count))
        for question in questions {
            name(question.name, into: &out)
            u16(question.type)
            u16(1 | (question.unicastResponse ? 0x8000 : 0))
        }
        for record in Array(answers) + Array(authorities) + Array(additionals) {
            name(record.name, into: &out)
            u16(record.data.type)
            u16(1 | (record.cacheFlush ? 0x8000 : 0))
            u32(record.ttl)
            var rdata: [UInt8] = []
            switch record.data {
            case .ptr(let target):
                name(target, into: &rdata)
            case .srv(let priority, let weight, let port, let target):
                for v in [priority, weight, port] { rdata.append(UInt8(v >> 8)); rdata.append(UInt8(v & 0xFF)) }
                name(target, into: &rdata)
            case .txt(let strings):
                if strings.isEmpty { rdata.append(0) }
                for string in strings {
                    let bytes = Array(string.utf8.prefix(255))
                    guard rdata.count + 1 + bytes.count <= limit else { break }
                    rdata.append(UInt8(bytes.count)); rdata += bytes
                }
            case .a(let bytes), .aaaa(let bytes), .other(_, let bytes):
                rdata = Array(bytes.prefix(limit))
            }
            u16(UInt16(rdata.count))
            out += rdata
        }
        return out
    }

    // MARK: Decoding

    public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> DNSMessage {
        var reader = Reader(bytes: bytes)
        let id = try reader.u16(), flags = try reader.u16()
        let qd = Int(try reader.u16()), an = Int(try reader.u16()), ns = Int(try reader.u16()), ar = Int(try reader.u16())
        guard qd <= 64, an <= 64, ns <= 64, ar <= 64 else { throw DecodingError(description: "too many records") }
        var message = DNSMessage(id: id, flags: flags)
        for _ in 0..<qd {
            let name = try reader.name()
            let type = try reader.u16(), klass = try reader.u16()
            message.questions.append(DNSQuestion(name: name, type: type, unicastResponse: klass & 0x8000 != 0))
        }
        func records(_ count: Int) throws(DecodingError) -> [DNSRecord] {
            var list: [DNSRecord] = []
            for _ in 0..<count {
                let name = try reader.name()
                let type = try reader.u16(), klass = try reader.u16(), ttl = try reader.u32()
                let length = Int(try reader.u16())
                let start = reader.offset
                guard start + length <= bytes.count else { throw DecodingError(description: "record data past the end") }
                let data: DNSRecordData
                switch DNSRecordType(rawValue: type) {
                case .ptr:
                    data = .ptr(try reader.name())
                case .srv:
                    let priority = try reader.u16(), weight = try reader.u16(), port = try reader.u16()
                    data = .srv(priority: priority, weight: weight, port: port, target: try reader.name())
                case .txt:
                    var strings: [String] = []
                    var position = start
                    while position < start + length {
                        let count = Int(bytes[position])
                        position += 1
                        guard position + count <= start + length else { throw DecodingError(description: "bad TXT") }
                        if count > 0 { strings.append(String(decoding: bytes[position..<(position + count)], as: UTF8.self)) }
                        position += count
                    }
                    data = .txt(strings)
                case .a where length == 4:
                    data = .a(Array(bytes[start..<(start + 4)]))
                case .aaaa where length == 16:
                    data = .aaaa(Array(bytes[start..<(start + 16)]))
                default:
                    data = .other(type: type, bytes: Array(bytes[start..<(start + length)]))
                }
                reader.offset = start + length
                list.append(DNSRecord(name: name, data: data, ttl: ttl, cacheFlush: klass & 0x8000 != 0))
            }
            return list
        }
        message.answers = try records(an)
        message.authorities = try records(ns)
        message.additionals = try records(ar)
        return message
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func u8() throws(DecodingError) -> UInt8 {
            guard offset < bytes.count else { throw DecodingError(description: "truncated message") }
            defer { offset += 1 }
            return bytes[offset]
        }
        mutating func u16() throws(DecodingError) -> UInt16 { UInt16(try u8()) << 8 | UInt16(try u8()) }
        mutating func u32() throws(DecodingError) -> UInt32 { UInt32(try u16()) << 16 | UInt32(try u16()) }

        /// A possibly compressed name; pointers must point strictly backwards (no loops).
        mutating func name() throws(DecodingError) -> DNSName {
            var labels: [String] = []
            var position = offset
            var jumped = false
            var limit = position
            var total = 0
            while true {
                guard position < bytes.count else { throw DecodingError(description: "truncated name") }
                let length = Int(bytes[position])
                if length == 0 {
                    position += 1
                    break
                }
                if length & 0xC0 == 0xC0 {
                    guard position + 1 < bytes.count else { throw DecodingError(description: "truncated pointer") }
                    let target = (length & 0x3F) << 8 | Int(bytes[position + 1])
                    guard target < limit else { throw DecodingError(description: "forward compression pointer") }
                    if !jumped { offset = position + 2; jumped = true }
                    limit = target
                    position = target
                    continue
                }
                guard length <= 63, position + 1 + length <= bytes.count else { throw DecodingError(description: "bad label") }
                total += length + 1
                guard total <= 255 else { throw DecodingError(description: "name too long") }
                labels.append(String(decoding: bytes[(position + 1)...(position + length)], as: UTF8.self))
                position += 1 + length
            }
            if !jumped { offset = position }
            return DNSName(labels: labels)
        }
    }
}
