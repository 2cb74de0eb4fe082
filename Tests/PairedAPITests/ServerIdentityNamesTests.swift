import Foundation
import HealthBridgeTesting
import PairedAPI
import Testing

/// Issue 26: the identity the MCP TLS listener shares names the addresses agents use (host-name checks on IP SANs).
struct ServerIdentityNamesTests {
    @Test func namesItsDNSAndIPSubjectAlternativeNames() throws {
        let identity = try ServerIdentity.generate(hostNames: ["box", "10.77.0.1", "fd00::7"])
        let names = identity.subjectAlternativeNames
        #expect(names.contains("localhost") && names.contains("box") && names.contains("10.77.0.1"))
        #expect(names.contains("127.0.0.1") && names.contains("::1") && names.contains("fd00::7"))
        #expect(identity.names("10.77.0.1") && identity.names("BOX") && identity.names("fd00:0:0::7"))
        #expect(!identity.names("10.77.0.2") && !identity.names("other") && !identity.names(""))
    }

    @Test func hostNamesAddTheListenersAddress() {
        let names = ServerIdentity.hostNames(adding: ["10.77.0.1"])
        #expect(names.contains("10.77.0.1"))
        #expect(Set(ServerIdentity.defaultHostNames()).isSubset(of: Set(names)))
    }

    @Test func anExistingIdentityKeepsItsNames() throws {
        let home = try TemporaryHome("identity-names")
        let (first, created) = try ServerIdentity.loadOrCreate(home: home.url, hostNames: ["10.77.0.1"])
        #expect(created && first.names("10.77.0.1"))
        // Loaded again with other names: the same certificate (paired devices keep their pin).
        let (again, createdAgain) = try ServerIdentity.loadOrCreate(home: home.url, hostNames: ["10.77.0.9"])
        #expect(!createdAgain && again.fingerprint == first.fingerprint && !again.names("10.77.0.9"))
    }
}
