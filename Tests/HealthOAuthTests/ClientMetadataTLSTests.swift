import Crypto
import Foundation
import HealthModel
import HealthSupport
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import SwiftASN1
import Testing
import X509
@testable import HealthOAuth

/// Client ID Metadata Documents over real loopback TLS: a document server with a self-signed certificate for
/// 127.0.0.1, trusted only through ``ClientTrustRoots`` (`serve --oauth-client-ca`).
@Suite struct ClientMetadataTLSTests {
    /// A self-signed certificate (its own CA) for 127.0.0.1 and its key, as PEM.
    struct TestCertificate {
        let certificatePEM: String
        let keyPEM: String

        init(commonName: String) throws {
            let key = P256.Signing.PrivateKey()
            let certificateKey = Certificate.PrivateKey(key)
            let name = try DistinguishedName { CommonName(commonName) }
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectKeyIdentifier(hash: certificateKey.publicKey)
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            }
            let now = Date()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: certificateKey.publicKey,
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
                issuerPrivateKey: certificateKey)
            certificatePEM = try certificate.serializeAsPEM().pemString
            keyPEM = key.pemRepresentation
        }

        func serverConfiguration() throws -> TLSConfiguration {
            let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
            let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        }
    }

    /// Serves `/client.json` (naming its own URL) and `/impostor.json` (naming another client_id) over TLS.
    static func documentServer(_ certificate: TestCertificate) async throws -> (port: Int, task: Task<Void, any Error>) {
        let router = Router()
        router.get("/client.json") { request, _ -> Response in
            let authority = request.head.authority ?? "127.0.0.1"
            return try json(["client_id": "https://\(authority)/client.json", "client_name": "TLS Agent",
                             "redirect_uris": ["http://127.0.0.1:9/callback"], "token_endpoint_auth_method": "none"])
        }
        router.get("/impostor.json") { _, _ -> Response in
            try json(["client_id": "https://trusted.example/client.json", "client_name": "Impostor",
                      "redirect_uris": ["https://trusted.example/cb"]])
        }
        let (port, task) = try await OAuthHarness.serve(
            router, server: try .tls(.http1(), tlsConfiguration: certificate.serverConfiguration()))
        return (port, task)
    }

    static func json(_ object: [String: Any]) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))))
    }

    @Test func trustedDocumentIsFetchedOthersRefused() async throws {
        let certificate = try TestCertificate(commonName: "metadata test server")
        let (port, task) = try await Self.documentServer(certificate)
        defer { task.cancel() }
        let clientID = "https://127.0.0.1:\(port)/client.json"

        // Trusted through the extra root: fetched and checked.
        let roots = try ClientTrustRoots(pem: certificate.certificatePEM)
        #expect(roots.certificates.count == 1)
        let trusting = ClientMetadataFetcher(allowLoopback: true, trustRoots: roots)
        let metadata = try await trusting.fetch(clientID)
        #expect(metadata == ClientMetadata(clientID: clientID, name: "TLS Agent", redirectURIs: ["http://127.0.0.1:9/callback"]))

        // A document naming another client_id: refused, even over trusted TLS.
        await #expect {
            _ = try await trusting.fetch("https://127.0.0.1:\(port)/impostor.json")
        } throws: { error in
            (error as? HealthError)?.message == "the client's metadata document names another client_id"
                && (error as? HealthError)?.code == .invalidArgument
        }

        // The system roots only, or another certificate as the extra root: the TLS handshake fails, said plainly.
        let other = try ClientTrustRoots(pem: TestCertificate(commonName: "someone else").certificatePEM)
        for fetcher in [ClientMetadataFetcher(allowLoopback: true),
                        ClientMetadataFetcher(allowLoopback: true, trustRoots: other)] {
            await #expect {
                _ = try await fetcher.fetch(clientID)
            } throws: { error in
                guard let error = error as? HealthError else { return false }
                return error.code == .invalidArgument && error.message.contains("is not trusted")
                    && error.message.contains("--oauth-client-ca")
            }
        }
    }

    /// Through the server's configuration (`serve --oauth-client-ca`): `/oauth/authorize` sends the browser to the
    /// consent page naming the document's client when the root is configured, and refuses on the spot otherwise.
    @Test func authorizeUsesConfiguredRoots() async throws {
        let certificate = try TestCertificate(commonName: "metadata test server")
        let (port, task) = try await Self.documentServer(certificate)
        defer { task.cancel() }
        let clientID = "https://127.0.0.1:\(port)/client.json"

        let trusting = try await OAuthHarness.start(clientTrustRoots: ClientTrustRoots(pem: certificate.certificatePEM))
        let accepted = try await trusting.authorize(scope: "health:read:stepCount", verifier: String(repeating: "v", count: 43),
                                                    clientID: clientID)
        let location = accepted.header("location") ?? ""
        #expect(accepted.status == 302 && location.contains("/consent?request="))
        let page = try await trusting.send("GET", location, headers: [("Cookie", trusting.cookie)])
        #expect(page.status == 200 && page.body.contains("TLS Agent") && page.body.contains("fetched from <code>\(clientID)</code>"))
        await trusting.stop()

        let plain = try await OAuthHarness.start()
        let refused = try await plain.authorize(scope: "health:read:stepCount", verifier: String(repeating: "v", count: 43),
                                                clientID: clientID)
        #expect(refused.status == 400 && refused.body.contains("is not trusted"))
        await plain.stop()
    }

    @Test func trustRootFiles() throws {
        let certificate = try TestCertificate(commonName: "file test")
        let second = try TestCertificate(commonName: "file test 2")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hb-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let bundle = directory.appendingPathComponent("bundle.pem")
        try Data((certificate.certificatePEM + "\n" + second.certificatePEM).utf8).write(to: bundle)
        #expect(try ClientTrustRoots(pemFile: bundle.path).certificates.count == 2)

        func refusal(_ path: String) -> String? {
            do { _ = try ClientTrustRoots(pemFile: path); return nil } catch { return error.code == .invalidArgument ? error.message : nil }
        }
        #expect(refusal(directory.appendingPathComponent("missing.pem").path)?.hasPrefix("cannot read the CA file") == true)
        let notPEM = directory.appendingPathComponent("key.pem")
        try Data(certificate.keyPEM.utf8).write(to: notPEM)
        #expect(refusal(notPEM.path)?.hasPrefix("no PEM certificate") == true)
        let broken = directory.appendingPathComponent("broken.pem")
        try Data("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n".utf8).write(to: broken)
        #expect(refusal(broken.path) == "the CA file holds a certificate that does not parse")
    }
}
