import Foundation
import HealthAccess
import HealthAPI
import HealthMCP
import HealthModel
@testable import HealthOAuth
import HealthService
import Testing

@Suite(.serialized) struct OAuthFlowTests {
    static let verifier = "v3rifier-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFG"
    static let scope = "health:read:stepCount health:read:heartRate health:write:dietaryWater offline_access"

    /// The whole flow the MCP authorization spec describes, in process: 401 with resource metadata → metadata →
    /// authorize (a client metadata document on loopback) → consent approving steps but not heart rate → token →
    /// MCP reads steps (data) and heart rate (looks empty) → refresh rotates → the old refresh token again revokes the
    /// family → a new authorization, revoked → 401.
    @Test func fullFlow() async throws {
        let harness = try await OAuthHarness.start()
        defer { Task { await harness.stop() } }

        // No token: 401 naming the protected-resource metadata.
        let refused = try await harness.callTool(nil, "list_types", [:])
        #expect(refused.status == 401)
        let challenge = try await harness.send("POST", harness.mcpURL, headers: [("Content-Type", "application/json")], body: "{}")
        #expect(challenge.header("www-authenticate") == "Bearer resource_metadata=\"https://health.example.test/.well-known/oauth-protected-resource/mcp\"")

        // The metadata documents.
        for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
            let prm = try #require(try await harness.send("GET", "http://127.0.0.1:\(harness.mcpPort)\(path)").json)
            #expect(prm["resource"] as? String == OAuthHarness.resource)
            #expect(prm["authorization_servers"] as? [String] == ["https://health.example.test"])
        }
        let asm = try #require(try await harness.send("GET", "http://127.0.0.1:\(harness.mcpPort)/.well-known/oauth-authorization-server").json)
        #expect(asm["issuer"] as? String == "https://health.example.test")
        #expect(asm["client_id_metadata_document_supported"] as? Bool == true)
        #expect(asm["code_challenge_methods_supported"] as? [String] == ["S256"])
        #expect(asm["registration_endpoint"] == nil)

        // Authorize and consent: steps and water, not heart rate.
        let (page, callback) = try await harness.consent(scope: Self.scope, verifier: Self.verifier,
                                                         read: ["stepCount"], write: ["dietaryWater"])
        #expect(page.contains("Test Agent"))
        #expect(page.contains(harness.clientID))
        #expect(page.contains("value=\"heartRate\""))
        let answer = OAuthHarness.query(callback)
        #expect(callback.hasPrefix(harness.redirectURI))
        #expect(answer["state"] == "st-123")
        #expect(answer["iss"] == "https://health.example.test")
        let code = try #require(answer["code"])

        // The token.
        let issued = try await harness.token([("grant_type", "authorization_code"), ("code", code),
                                              ("client_id", harness.clientID), ("redirect_uri", harness.redirectURI),
                                              ("code_verifier", Self.verifier), ("resource", OAuthHarness.resource)])
        #expect(issued.status == 200)
        #expect(issued.header("cache-control") == "no-store")
        let tokens = try #require(issued.json)
        let firstAccess = try #require(tokens["access_token"] as? String)
        let firstRefresh = try #require(tokens["refresh_token"] as? String)
        #expect(tokens["token_type"] as? String == "Bearer")
        #expect(tokens["expires_in"] as? Int == 3600)
        #expect(tokens["scope"] as? String == "health:read:stepCount health:write:dietaryWater")
        // The code works once: a second use is refused and revokes what the code gave.
        #expect(try await harness.callTool(firstAccess, "list_types", [:]).status == 200)
        let again = try await harness.token([("grant_type", "authorization_code"), ("code", code),
                                             ("client_id", harness.clientID), ("code_verifier", Self.verifier)])
        #expect(again.status == 400)
        #expect(again.json?["error"] as? String == "invalid_grant")
        #expect(try await harness.callTool(firstAccess, "list_types", [:]).status == 401)
        #expect(try await harness.token([("grant_type", "refresh_token"), ("refresh_token", firstRefresh),
                                         ("client_id", harness.clientID)]).status == 400)

        // Authorize again (the same consent), and go on with those tokens.
        let secondCode = OAuthHarness.query(try await harness.consent(scope: Self.scope, verifier: Self.verifier,
                                                                      read: ["stepCount"], write: ["dietaryWater"]).callback)["code"] ?? ""
        let secondTokens = try #require(try await harness.token([("grant_type", "authorization_code"), ("code", secondCode),
                                                                 ("client_id", harness.clientID), ("redirect_uri", harness.redirectURI),
                                                                 ("code_verifier", Self.verifier)]).json)
        let access = try #require(secondTokens["access_token"] as? String)
        let refresh = try #require(secondTokens["refresh_token"] as? String)

        // MCP as the client's principal: steps have data, heart rate looks empty (the owner has some).
        let owner = try await harness.service.samples(SamplesRequest(type: "heartRate", start: "7d"))
        #expect(owner.count > 0)
        let steps = try await harness.callTool(access, "query_samples", ["type": "stepCount", "start": "7d"])
        #expect(steps.status == 200)
        #expect((steps.result?["count"] as? Int ?? 0) > 0)
        let heart = try await harness.callTool(access, "query_samples", ["type": "heartRate", "start": "7d"])
        #expect(heart.status == 200)
        #expect(heart.result?["count"] as? Int == 0)
        let principal = "mcp:" + AccessStore.oauthPrincipalName(clientID: harness.clientID, source: .metadataDocument)
        let grants = try await harness.service.grants(for: Principal(parsing: principal))
        #expect(grants.read == .types(["stepCount"]))
        #expect(grants.write == .types(["dietaryWater"]))

        // Refresh rotates.
        let rotated = try await harness.token([("grant_type", "refresh_token"), ("refresh_token", refresh),
                                               ("client_id", harness.clientID), ("resource", OAuthHarness.resource)])
        #expect(rotated.status == 200)
        let newAccess = try #require(rotated.json?["access_token"] as? String)
        let newRefresh = try #require(rotated.json?["refresh_token"] as? String)
        #expect(newRefresh != refresh)
        #expect(try await harness.callTool(newAccess, "list_types", [:]).status == 200)
        // The old refresh token again: refused, and the whole family is revoked.
        let reused = try await harness.token([("grant_type", "refresh_token"), ("refresh_token", refresh),
                                              ("client_id", harness.clientID)])
        #expect(reused.status == 400)
        #expect(reused.json?["error"] as? String == "invalid_grant")
        #expect(try await harness.callTool(newAccess, "list_types", [:]).status == 401)
        #expect(try await harness.callTool(access, "list_types", [:]).status == 401)
        #expect(try await harness.token([("grant_type", "refresh_token"), ("refresh_token", newRefresh),
                                         ("client_id", harness.clientID)]).status == 400)

        // A new authorization, then revocation (RFC 7009): the next call is 401.
        let second = OAuthHarness.query(try await harness.consent(scope: Self.scope, verifier: Self.verifier,
                                                                  read: ["stepCount"], write: []).callback)
        let fresh = try #require(try await harness.token([("grant_type", "authorization_code"), ("code", second["code"] ?? ""),
                                                          ("client_id", harness.clientID), ("code_verifier", Self.verifier)]).json)
        let freshAccess = try #require(fresh["access_token"] as? String)
        #expect(try await harness.callTool(freshAccess, "list_types", [:]).status == 200)
        let revoked = try await harness.postForm("http://127.0.0.1:\(harness.mcpPort)/oauth/revoke",
                                                 [("token", freshAccess), ("client_id", harness.clientID)])
        #expect(revoked.status == 200)
        let after = try await harness.send("POST", harness.mcpURL, headers: [("Content-Type", "application/json"),
                                                                             ("Authorization", "Bearer \(freshAccess)")], body: "{}")
        #expect(after.status == 401)
        #expect(after.header("www-authenticate")?.contains("error=\"invalid_token\"") == true)

        // Audited, without a token.
        let audit = try harness.access.rawAuditDump()
        for action in ["token.issue", "token.refresh", "refresh.reuse", "code.reuse", "token.revoke", "oauth.consent"] {
            #expect(audit.contains(action), "audit lacks \(action)")
        }
        for secret in [firstAccess, firstRefresh, access, refresh, newAccess, newRefresh, freshAccess, code, secondCode] {
            #expect(!audit.contains(secret))
        }
        // The Access page lists the client.
        let accessPage = try await harness.send("GET", "http://127.0.0.1:\(harness.consolePort)/access",
                                                headers: [("Cookie", harness.cookie)])
        #expect(accessPage.body.contains("oauth-clients"))
        #expect(accessPage.body.contains(principal))
    }

    /// A token minted for another resource is refused; PKCE plain, a wrong verifier, a wrong resource at authorize
    /// and a denied consent are refused.
    @Test func refusals() async throws {
        let harness = try await OAuthHarness.start()
        defer { Task { await harness.stop() } }

        // PKCE plain: back to the client with invalid_request.
        let plain = try await harness.authorize(scope: Self.scope, verifier: Self.verifier, method: "plain")
        #expect(plain.status == 302)
        #expect(OAuthHarness.query(plain.header("location") ?? "")["error"] == "invalid_request")
        // Another resource at authorize: invalid_target.
        let target = try await harness.authorize(scope: Self.scope, verifier: Self.verifier,
                                                 resource: "https://elsewhere.example.test/mcp")
        #expect(OAuthHarness.query(target.header("location") ?? "")["error"] == "invalid_target")
        // An unknown scope: invalid_scope.
        let scope = try await harness.authorize(scope: "health:delete:stepCount", verifier: Self.verifier)
        #expect(OAuthHarness.query(scope.header("location") ?? "")["error"] == "invalid_scope")
        // A client_id that is not a document: answered here, never redirected.
        let unknown = try await harness.authorize(scope: Self.scope, verifier: Self.verifier, clientID: "some-client")
        #expect(unknown.status == 400)
        #expect(unknown.header("location") == nil)

        // A metadata document that redirects, or that names another client_id: refused on the spot.
        for path in ["moved.json", "impostor.json", "missing.json"] {
            let reply = try await harness.authorize(scope: Self.scope, verifier: Self.verifier,
                                                    clientID: "http://127.0.0.1:\(harness.clientPort)/\(path)")
            #expect(reply.status == 400, "\(path)")
            #expect(reply.header("location") == nil)
        }
        // A redirect URI the client did not list: refused on the spot, never redirected to.
        var foreign = URLComponents(string: "http://127.0.0.1:\(harness.mcpPort)/oauth/authorize")!
        foreign.queryItems = [URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: harness.clientID),
                              URLQueryItem(name: "redirect_uri", value: "https://attacker.example/cb"),
                              URLQueryItem(name: "code_challenge", value: AccessStore.pkceS256(Self.verifier)),
                              URLQueryItem(name: "code_challenge_method", value: "S256"), URLQueryItem(name: "state", value: "s")]
        let misdirected = try await harness.send("GET", foreign.string!)
        #expect(misdirected.status == 400)
        #expect(misdirected.header("location") == nil)

        // Loopback without a public URL: no token acts as mcp:default; the static token too; else 401.
        #expect(await harness.oauth.authorizer(staticToken: nil, anonymous: true).authorize(bearer: nil) == .allow(nil))
        let withStatic = harness.oauth.authorizer(staticToken: "static-token-0123456789", anonymous: false)
        #expect(await withStatic.authorize(bearer: "static-token-0123456789") == .allow(nil))
        if case .refuse(let status, _, _) = await withStatic.authorize(bearer: nil) { #expect(status == 401) } else {
            Issue.record("a request without a token was let in")
        }

        // A wrong verifier: invalid_grant (and the code is used up).
        let code = OAuthHarness.query(try await harness.consent(scope: Self.scope, verifier: Self.verifier,
                                                                read: ["stepCount"], write: []).callback)["code"] ?? ""
        let wrong = try await harness.token([("grant_type", "authorization_code"), ("code", code),
                                             ("client_id", harness.clientID),
                                             ("code_verifier", String(Self.verifier.reversed()))])
        #expect(wrong.status == 400)
        #expect(wrong.json?["error"] as? String == "invalid_grant")

        // Denied consent: access_denied, no grant given.
        let denied = OAuthHarness.query(try await harness.consent(scope: Self.scope, verifier: Self.verifier, read: [],
                                                                  write: [], approve: false).callback)
        #expect(denied["error"] == "access_denied")
        #expect(denied["state"] == "st-123")

        // A token for this resource, presented to a server of another resource: refused.
        let good = OAuthHarness.query(try await harness.consent(scope: Self.scope, verifier: Self.verifier,
                                                                read: ["stepCount"], write: []).callback)["code"] ?? ""
        let tokens = try #require(try await harness.token([("grant_type", "authorization_code"), ("code", good),
                                                           ("client_id", harness.clientID),
                                                           ("code_verifier", Self.verifier)]).json)
        let access = try #require(tokens["access_token"] as? String)
        let elsewhere = OAuthServer(service: harness.service,
                                    configuration: .init(resource: "https://other.example.test/mcp", consentOrigin: { nil }))
        let decision = await elsewhere.authorizer(staticToken: nil, anonymous: false).authorize(bearer: access)
        guard case .refuse(let status, let header, _) = decision else {
            Issue.record("a token for another resource was accepted")
            return
        }
        #expect(status == 401)
        #expect(header?.contains("https://other.example.test/.well-known/oauth-protected-resource/mcp") == true)
        let here = await harness.oauth.authorizer(staticToken: nil, anonymous: false).authorize(bearer: access)
        #expect(here == .allow(try Principal(parsing: "mcp:" + AccessStore.oauthPrincipalName(clientID: harness.clientID,
                                                                                               source: .metadataDocument))))
        // Revoking the client (the owner): its tokens stop at once, its grants are gone.
        #expect(try await harness.service.revokeOAuthClient(harness.clientID) != nil)
        #expect(try await harness.callTool(access, "list_types", [:]).status == 401)
        let again = try await harness.authorize(scope: Self.scope, verifier: Self.verifier)
        #expect(again.status == 400)
    }

    /// Dynamic registration exists only when the owner turns it on.
    @Test func dynamicRegistration() async throws {
        let off = try await OAuthHarness.start()
        let offReply = try await off.send("POST", "http://127.0.0.1:\(off.mcpPort)/oauth/register",
                                          headers: [("Content-Type", "application/json")],
                                          body: #"{"redirect_uris":["http://127.0.0.1:9/cb"]}"#)
        #expect(offReply.status == 404)
        await off.stop()

        let on = try await OAuthHarness.start(dynamicRegistration: true)
        defer { Task { await on.stop() } }
        let asm = try #require(try await on.send("GET", "http://127.0.0.1:\(on.mcpPort)/.well-known/oauth-authorization-server").json)
        #expect(asm["registration_endpoint"] as? String == "https://health.example.test/oauth/register")
        let bad = try await on.send("POST", "http://127.0.0.1:\(on.mcpPort)/oauth/register",
                                    headers: [("Content-Type", "application/json")],
                                    body: #"{"redirect_uris":["javascript:alert(1)"]}"#)
        #expect(bad.status == 400)
        let registered = try await on.send("POST", "http://127.0.0.1:\(on.mcpPort)/oauth/register",
                                           headers: [("Content-Type", "application/json")],
                                           body: #"{"redirect_uris":["\#(on.redirectURI)"],"client_name":"Registered Agent"}"#)
        #expect(registered.status == 201)
        let clientID = try #require(registered.json?["client_id"] as? String)
        let authorized = try await on.authorize(scope: "health:read", verifier: Self.verifier, clientID: clientID)
        #expect(authorized.status == 302)
        #expect(authorized.header("location")?.contains("/consent?request=") == true)
    }
}

struct OAuthUnitTests {
    @Test func scopeSyntax() throws {
        let scope = try OAuthScope(parsing: "health:read:stepCount health:read:HKQuantityTypeIdentifierHeartRate health:write:dietaryWater offline_access")
        #expect(scope.read == ["stepCount", "heartRate"])
        #expect(scope.write == ["dietaryWater"])
        #expect(!scope.chooseRead && !scope.chooseWrite)
        #expect(scope.other == ["offline_access"])
        let choose = try OAuthScope(parsing: "health:read health:write")
        #expect(choose.chooseRead && choose.chooseWrite)
        #expect(throws: HealthError.self) { try OAuthScope(parsing: "health:read:noSuchType") }
        #expect(throws: HealthError.self) { try OAuthScope(parsing: "health:admin") }
        #expect(OAuthScope.granted(read: ["stepCount"], write: ["dietaryWater"]) == "health:read:stepCount health:write:dietaryWater")
    }

    @Test func pkceAndIssuer() {
        // RFC 7636 appendix B.
        #expect(AccessStore.pkceS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(HealthService.issuer(ofResource: "https://health.example.com/mcp") == "https://health.example.com")
        #expect(HealthService.issuer(ofResource: "http://127.0.0.1:8080/mcp") == "http://127.0.0.1:8080")
    }

    @Test func publicURL() throws {
        #expect(try OAuthServer.resourceURL(publicURL: "https://health.example.com") == "https://health.example.com/mcp")
        #expect(try OAuthServer.resourceURL(publicURL: "https://health.example.com/mcp") == "https://health.example.com/mcp")
        #expect(try OAuthServer.resourceURL(publicURL: "http://127.0.0.1:8080") == "http://127.0.0.1:8080/mcp")
        #expect(throws: HealthError.self) { try OAuthServer.resourceURL(publicURL: "http://health.example.com") }
        #expect(throws: HealthError.self) { try OAuthServer.resourceURL(publicURL: "https://health.example.com/other") }
        #expect(throws: HealthError.self) { try OAuthServer.resourceURL(publicURL: "not a url") }
    }

    @Test func clientMetadataDocuments() throws {
        let url = "https://app.example/client.json"
        let good = try ClientMetadataFetcher.parse(Data(#"{"client_id":"https://app.example/client.json","client_name":"App","redirect_uris":["https://app.example/cb","http://127.0.0.1/cb","com.example.app:/cb"]}"#.utf8), clientID: url)
        #expect(good.name == "App")
        #expect(good.redirectURIs.count == 3)
        let unnamed = try ClientMetadataFetcher.parse(Data(#"{"client_id":"https://app.example/client.json","redirect_uris":["https://app.example/cb"]}"#.utf8), clientID: url)
        #expect(unnamed.name == "app.example")
        for bad in [#"{"client_id":"https://other.example/client.json","redirect_uris":["https://app.example/cb"]}"#,
                    #"{"client_id":"https://app.example/client.json","redirect_uris":[]}"#,
                    #"{"client_id":"https://app.example/client.json","redirect_uris":["javascript:alert(1)"]}"#,
                    #"{"client_id":"https://app.example/client.json","redirect_uris":["http://app.example/cb"]}"#,
                    #"{"client_id":"https://app.example/client.json","redirect_uris":["https://app.example/cb"],"client_secret":"x"}"#,
                    #"{"client_id":"https://app.example/client.json","redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}"#,
                    "[1, 2]", "not json"] {
            #expect(throws: HealthError.self, "\(bad)") { try ClientMetadataFetcher.parse(Data(bad.utf8), clientID: url) }
        }
        #expect(OAuthServer.redirectMatches("http://127.0.0.1:5555/cb", ["http://127.0.0.1/cb"]))
        #expect(!OAuthServer.redirectMatches("http://127.0.0.1:5555/other", ["http://127.0.0.1/cb"]))
        #expect(!OAuthServer.redirectMatches("https://app.example:444/cb", ["https://app.example/cb"]))
    }

    @Test func clientMetadataURLs() {
        let strict = ClientMetadataFetcher(allowLoopback: false)
        #expect(strict.isMetadataURL("https://app.example/oauth/client.json"))
        #expect(!strict.isMetadataURL("http://app.example/client.json"))
        #expect(!strict.isMetadataURL("https://app.example/"))
        #expect(!strict.isMetadataURL("https://127.0.0.1/client.json"))
        #expect(!strict.isMetadataURL("https://192.168.1.10/client.json"))
        #expect(!strict.isMetadataURL("https://10.0.0.1/client.json"))
        #expect(!strict.isMetadataURL("https://[fe80::1]/client.json"))
        #expect(!strict.isMetadataURL("https://user@app.example/client.json"))
        let local = ClientMetadataFetcher(allowLoopback: true)
        #expect(local.isMetadataURL("http://127.0.0.1:9/client.json"))
        #expect(!local.isMetadataURL("http://192.168.1.10/client.json"))
    }
}
