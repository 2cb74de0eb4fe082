import PairedAPIClient
import Foundation
import FuzzSupport
import NIOCore

/// The DNS message decoder over arbitrary datagrams, then what discovery does with a decoded answer (service
/// records, TXT entries), then a re-encode that must decode again.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let message = try? DNSMessage.decode(bytes) else { return 0 }
    if let sender = try? SocketAddress(ipAddress: "192.168.1.10", port: 5353) {
        _ = ServiceBrowser.services(in: [(message, sender)], serviceType: DNSName("_healthsync._tcp.local"))
        for record in message.answers where record.name.labels.count > 1 {
            _ = ServiceBrowser.services(in: [(message, sender)], serviceType: DNSName(labels: Array(record.name.labels)))
        }
    }
    let encoded = message.encode()
    guard (try? DNSMessage.decode(encoded)) != nil else { fatalError("a decoded message does not re-encode to a valid one") }
    return 0
}

exit(runFuzzer { fuzzOne($0, $1) })
