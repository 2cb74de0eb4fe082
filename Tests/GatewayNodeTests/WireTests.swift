import Crypto
import Foundation
import GatewayNode
import HealthAPI
import HealthModel
import Testing

extension GatewayNodeTests {
    @Suite struct Wire {
        @Test func signedPayloadsMatchTheReferenceVectors() {
            #expect(DeviceAuthPayload.v2(deviceId: "dev-1", clientId: "openclaw-macos", clientMode: "ui", role: "operator",
                                         scopes: ["operator.admin", "operator.read"], signedAtMs: 1_700_000_000_000,
                                         token: "tok-123", nonce: "nonce-abc")
                    == "v2|dev-1|openclaw-macos|ui|operator|operator.admin,operator.read|1700000000000|tok-123|nonce-abc")
            #expect(DeviceAuthPayload.v3(deviceId: "dev-1", clientId: "openclaw-macos", clientMode: "ui", role: "operator",
                                         scopes: ["operator.admin", "operator.read"], signedAtMs: 1_700_000_000_000,
                                         token: "tok-123", nonce: "nonce-abc", platform: "  IOS  ", deviceFamily: "  iPhone  ")
                    == "v3|dev-1|openclaw-macos|ui|operator|operator.admin,operator.read|1700000000000|tok-123|nonce-abc|ios|iphone")
            #expect(DeviceAuthPayload.v3(deviceId: "d", clientId: "node-host", clientMode: "node", role: "node", scopes: [],
                                         signedAtMs: 1, token: nil, nonce: "n", platform: "linux", deviceFamily: nil)
                    == "v3|d|node-host|node|node||1||n|linux|")
            #expect(DeviceAuthPayload.normalizeMetadata("  İOS  ") == "İos")
            #expect(DeviceAuthPayload.normalizeMetadata(nil) == "")
        }

        @Test func theDeviceIdIsTheHexSHA256OfThePublicKeyAndSignaturesVerify() throws {
            let identity = DeviceIdentity.generate()
            let raw = try #require(Base64URL.decode(identity.publicKeyBase64URL))
            #expect(raw.count == 32)
            #expect(identity.deviceId == SHA256.hash(data: raw).map { String(format: "%02x", $0) }.joined())
            let signature = try identity.sign("v3|payload")
            #expect(!signature.contains("=") && !signature.contains("+") && !signature.contains("/"))
            let key = try Curve25519.Signing.PublicKey(rawRepresentation: raw)
            #expect(key.isValidSignature(try #require(Base64URL.decode(signature)), for: Data("v3|payload".utf8)))
            #expect(!key.isValidSignature(try #require(Base64URL.decode(signature)), for: Data("v2|payload".utf8)))
        }

        @Test func theIdentityIsCreatedOnceKeptPrivateAndNeverReplaced() async throws {
            try await withTemporaryDirectory { dir in
                let url = dir.appendingPathComponent(DeviceIdentity.fileName)
                let first = try DeviceIdentity.loadOrCreate(at: url)
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
                #expect(try DeviceIdentity.loadOrCreate(at: url) == first)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
                _ = try DeviceIdentity.loadOrCreate(at: url)
                #expect((try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) == 0o600)

                try Data("{\"version\":1}".utf8).write(to: url)
                #expect(throws: HealthError.self) { try DeviceIdentity.loadOrCreate(at: url) }
                #expect(try String(contentsOf: url, encoding: .utf8) == "{\"version\":1}", "a broken identity is not overwritten")
            }
        }

        @Test func framesCarryOnlyTheirSchemasKeys() throws {
            let request = try JSONValue(json: GatewayWire.encode(RequestFrame<JSONValue>(id: "1", method: "m", params: nil)))
            #expect(request == .object(["type": .string("req"), "id": .string("1"), "method": .string("m")]))

            let failure = NodeInvokeResultParams.failure(NodeInvokeRequest(id: "i", nodeId: "n", command: "health.query"),
                                                         NodeInvokeError(code: "HEALTH_INVALID_TYPE", "unknown type 'x'"))
            #expect(try JSONValue(json: GatewayWire.encode(failure)) == .object([
                "id": .string("i"), "nodeId": .string("n"), "ok": .bool(false),
                "error": .object(["code": .string("HEALTH_INVALID_TYPE"), "message": .string("HEALTH_INVALID_TYPE: unknown type 'x'")]),
            ]))
            let success = NodeInvokeResultParams.success(NodeInvokeRequest(id: "i", nodeId: "n", command: "c"), payloadJSON: nil)
            #expect(try JSONValue(json: GatewayWire.encode(success)) == .object(["id": .string("i"), "nodeId": .string("n"), "ok": .bool(true)]))
            #expect(try JSONValue(json: GatewayWire.encode(NodeEventParams(event: "health.update", payloadJSON: "{}")))
                    == .object(["event": .string("health.update"), "payloadJSON": .string("{}")]))

            let params = ConnectParams(client: ClientInfo(id: "node-host", version: "1", platform: "linux", mode: "node"),
                                       caps: ["health"], commands: [], permissions: [:], device: nil, auth: nil)
            let keys = try JSONValue(json: GatewayWire.encode(params)).objectValue?.keys.sorted()
            #expect(keys == ["caps", "client", "maxProtocol", "minProtocol", "role", "scopes"])

            // Incoming invoke requests: unknown keys ignored, paramsJSON may be null.
            let invoke = try JSONValue(json: #"{"id":"a","nodeId":"b","command":"health.query","paramsJSON":null,"timeoutMs":500,"extra":1}"#)
                .decode(NodeInvokeRequest.self)
            #expect(invoke == NodeInvokeRequest(id: "a", nodeId: "b", command: "health.query", paramsJSON: nil, timeoutMs: 500))
        }
    }
}
