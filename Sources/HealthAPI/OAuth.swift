import Foundation
import HealthModel

/// What one OAuth client of the MCP endpoint is: its `client_id` (the URL of its metadata document, or an id this
/// server registered), the principal it acts as (`mcp:<principalName>`), the name it gave, where that came from, and
/// the redirect URIs it may use.
public struct OAuthClientRecord: Sendable, Equatable, Codable {
    public enum Source: String, Sendable, Codable {
        /// A Client ID Metadata Document fetched from the `client_id` URL.
        case metadataDocument = "metadata-document"
        /// Dynamic client registration (RFC 7591), when the owner turned it on.
        case registered
    }

    public var clientID: String
    /// The name of the principal `mcp:<principalName>` the client's tokens act as.
    public var principalName: String
    public var name: String
    public var source: Source
    public var redirectURIs: [String]
    public var createdAt: Date
    public var revokedAt: Date?

    public init(clientID: String, principalName: String, name: String, source: Source, redirectURIs: [String],
                createdAt: Date = Date(), revokedAt: Date? = nil) {
        self.clientID = clientID; self.principalName = principalName; self.name = name; self.source = source
        self.redirectURIs = redirectURIs; self.createdAt = createdAt; self.revokedAt = revokedAt
    }

    /// The principal its tokens act as.
    public var principal: Principal { .mcp(principalName) }
}

/// An authorization request waiting for the person's consent, or an authorization code's facts.
public struct OAuthAuthorizationRequest: Sendable, Equatable {
    public var clientID: String
    public var redirectURI: String
    /// The PKCE S256 challenge.
    public var codeChallenge: String
    public var state: String?
    /// The resource (RFC 8707) the token will be bound to.
    public var resource: String
    public var scope: String
    public var expiresAt: Date

    public init(clientID: String, redirectURI: String, codeChallenge: String, state: String?, resource: String,
                scope: String, expiresAt: Date) {
        self.clientID = clientID; self.redirectURI = redirectURI; self.codeChallenge = codeChallenge
        self.state = state; self.resource = resource; self.scope = scope; self.expiresAt = expiresAt
    }
}

/// A valid access token's facts (never the token).
public struct OAuthAccessGrant: Sendable, Equatable {
    public var clientID: String
    public var principalName: String
    public var resource: String
    public var scope: String
    public var expiresAt: Date

    public init(clientID: String, principalName: String, resource: String, scope: String, expiresAt: Date) {
        self.clientID = clientID; self.principalName = principalName; self.resource = resource; self.scope = scope
        self.expiresAt = expiresAt
    }
}

/// A freshly issued access token and refresh token: the only moment the tokens exist outside the client.
public struct OAuthTokenPair: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresIn: Int
    public var scope: String

    public init(accessToken: String, refreshToken: String, expiresIn: Int, scope: String) {
        self.accessToken = accessToken; self.refreshToken = refreshToken; self.expiresIn = expiresIn; self.scope = scope
    }
}

/// What presenting an authorization code or a refresh token came to.
public enum OAuthRedemption: Sendable, Equatable {
    /// The code or refresh token was valid and is used up now; its facts.
    case valid(OAuthAuthorizationRequest, family: String)
    /// It was already used: every token of its family is revoked now.
    case reused
    /// Unknown, expired, revoked, or of another client.
    case invalid
}
