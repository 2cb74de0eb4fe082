import Crypto
import HealthAPI
import HealthSupport
import PairedAPIClient
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// The export server's TLS identity: a P-256 key and a self-signed certificate that is flagged as a CA
/// (BasicConstraints CA:true, keyCertSign), so clients can either pin its fingerprint or add it as a trust anchor.
///
/// Generated on first run and kept in `<home>/tls/` (directory 0700): `export-key.pem` (0600, PKCS#8) and
/// `export-cert.pem` (0600). The fingerprint is the SHA-256 of the certificate's DER bytes in lowercase hex.
public struct ServerIdentity: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String
    public let certificateDER: [UInt8]
    /// SHA-256 of the DER certificate, 64 lowercase hex digits.
    public let fingerprint: String
    public let notValidAfter: Date

    public static let directoryName = "tls"
    public static let keyFileName = "export-key.pem"
    public static let certificateFileName = "export-cert.pem"

    /// Loads the identity in `home/tls`, or creates one there.
    /// - Returns: the identity and whether it was just created.
    public static func loadOrCreate(home: URL, hostNames: [String] = defaultHostNames()) throws -> (ServerIdentity, created: Bool) {
        let directory = home.appendingPathComponent(directoryName, isDirectory: true)
        try PairedServerStore.ensureDirectory(directory)
        let keyURL = directory.appendingPathComponent(keyFileName)
        let certificateURL = directory.appendingPathComponent(certificateFileName)
        let fm = FileManager.default
        if fm.fileExists(atPath: keyURL.path), fm.fileExists(atPath: certificateURL.path) {
            for url in [keyURL, certificateURL] { try PrivateFile.tightenFile(url.path) }
            let keyPEM = try String(contentsOf: keyURL, encoding: .utf8)
            let certificatePEM = try String(contentsOf: certificateURL, encoding: .utf8)
            return (try ServerIdentity(certificatePEM: certificatePEM, privateKeyPEM: keyPEM), false)
        }
        let identity = try generate(hostNames: hostNames)
        try PairedServerStore.writePrivate(Data(identity.privateKeyPEM.utf8), to: keyURL)
        try PairedServerStore.writePrivate(Data(identity.certificatePEM.utf8), to: certificateURL)
        return (identity, true)
    }

    /// A fresh identity that lives only in memory (tests).
    public static func generate(hostNames: [String] = defaultHostNames(), now: Date = Date(),
                                validity: TimeInterval = 10 * 365 * 86_400) throws -> ServerIdentity {
        let key = P256.Signing.PrivateKey()
        let certificateKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName {
            CommonName("HealthBridge export server")
            OrganizationName("HealthBridge")
        }
        var names: [GeneralName] = []
        var seen = Set<String>()
        for host in ["localhost"] + hostNames where seen.insert(host.lowercased()).inserted {
            if let ip = ipBytes(host) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(ip))))
            } else if !host.isEmpty {
                names.append(.dnsName(host))
            }
        }
        for ip in ["127.0.0.1", "::1"] where seen.insert(ip).inserted {
            names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(ipBytes(ip)!))))
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectKeyIdentifier(hash: certificateKey.publicKey)
            SubjectAlternativeNames(names)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: certificateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(validity),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: certificateKey)
        return try ServerIdentity(certificatePEM: certificate.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation)
    }

    public init(certificatePEM: String, privateKeyPEM: String) throws {
        let certificate = try Certificate(pemEncoded: certificatePEM)
        let key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        guard Certificate.PublicKey(key.publicKey) == certificate.publicKey else {
            throw ServerIdentityError.identity("the export key does not belong to the export certificate; remove both files in the tls directory to make a new identity (paired clients must pair again)")
        }
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateDER = serializer.serializedBytes
        self.fingerprint = CertificateFingerprint.sha256(der: serializer.serializedBytes)
        self.notValidAfter = certificate.notValidAfter
    }

    /// The TLS 1.2 suites the server offers: forward-secret AEAD only (AES-GCM, ChaCha20-Poly1305), no CBC, no SHA-1
    /// MAC, no static RSA key exchange. TLS 1.3 suites are all AEAD and are not affected by this list.
    public static let tls12CipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// The server TLS configuration: TLS 1.2 minimum with ``tls12CipherSuites`` only, TLS 1.3 negotiated when the
    /// client offers it.
    public func serverTLSConfiguration(shutdownTimeout: TimeAmount = .seconds(1)) throws -> TLSConfiguration {
        let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)],
                                                                     privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = Self.tls12CipherSuites
        configuration.shutdownTimeout = shutdownTimeout
        return configuration
    }

    /// `localhost`, this machine's host name and `<name>.local`.
    public static func defaultHostNames() -> [String] {
        let host = ProcessInfo.processInfo.hostName
        var names = [String]()
        if !host.isEmpty, host != "localhost" {
            names.append(host)
            if !host.contains(".") { names.append(host + ".local") }
        }
        return names
    }

    static func ipBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

/// Errors of the export server's own machinery (identity, state file); API errors are ``APIError``.
public enum ServerIdentityError: Error, Sendable, CustomStringConvertible {
    case identity(String)
    case state(String)
    case startup(String)

    public var description: String {
        switch self {
        case .identity(let message), .state(let message), .startup(let message): return message
        }
    }
}
