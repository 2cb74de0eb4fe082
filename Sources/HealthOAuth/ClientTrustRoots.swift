import Foundation
import HealthModel
import NIOSSL

/// Extra certificate authorities the server trusts, beside the system's, when it fetches a client's Client ID Metadata
/// Document over `https`: an internal CA, or the self-signed certificate of a test's document server
/// (`serve --oauth-client-ca FILE`). The system's roots stay trusted.
///
/// ```swift
/// let roots = try ClientTrustRoots(pemFile: "/etc/healthbridge/internal-ca.pem")
/// let oauth = OAuthServer(service: service, configuration: .init(resource: resource, consentOrigin: { nil },
///                                                                clientTrustRoots: roots))
/// ```
public struct ClientTrustRoots: Sendable {
    /// The certificates, in the order the PEM text holds them (at least one).
    public let certificates: [NIOSSLCertificate]

    /// One or more PEM certificates (`-----BEGIN CERTIFICATE-----`). `HEALTH_INVALID_ARGUMENT` when there is none or one
    /// does not parse.
    public init(pem: String) throws(HealthError) {
        guard pem.contains("-----BEGIN CERTIFICATE-----") else {
            throw HealthError(.invalidArgument, "no PEM certificate (-----BEGIN CERTIFICATE-----) in the CA file",
                              argument: "oauth-client-ca")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw HealthError(.invalidArgument, "the CA file holds a certificate that does not parse", argument: "oauth-client-ca")
        }
        guard !certificates.isEmpty else {
            throw HealthError(.invalidArgument, "no certificate in the CA file", argument: "oauth-client-ca")
        }
        self.certificates = certificates
    }

    /// Reads `pemFile`. `HEALTH_INVALID_ARGUMENT` when it cannot be read, is larger than 1 MiB, or holds no valid
    /// certificate.
    public init(pemFile: String) throws(HealthError) {
        let url = URL(fileURLWithPath: pemFile)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw HealthError(.invalidArgument, "cannot read the CA file \(pemFile)", argument: "oauth-client-ca")
        }
        guard data.count <= 1 << 20, let text = String(data: data, encoding: .utf8) else {
            throw HealthError(.invalidArgument, "the CA file \(pemFile) is not PEM text (at most 1 MiB)", argument: "oauth-client-ca")
        }
        try self.init(pem: text)
    }
}
