import Testing
import HealthModel
import HealthStorePostgres

@Suite struct PostgresStoreConfigurationTests {
    @Test func parsesEveryPart() throws {
        let c = try PostgresStoreConfiguration(url: "postgres://hb:s%40cret@db.local:6543/health?schema=t_1&sslmode=require")
        #expect(c.host == "db.local")
        #expect(c.port == 6543)
        #expect(c.username == "hb")
        #expect(c.password == "s@cret")
        #expect(c.database == "health")
        #expect(c.schema == "t_1")
        #expect(c.tls == .require)
        #expect(!c.redactedDescription.contains("cret"))
    }

    @Test func defaults() throws {
        let c = try PostgresStoreConfiguration(url: "postgresql://127.0.0.1")
        #expect(c.port == 5432)
        #expect(c.username == "postgres")
        #expect(c.database == "postgres")
        #expect(c.schema == "healthbridge")
        #expect(c.tls == .disable)
    }

    @Test(arguments: ["http://x", "postgres://", "postgres://h:0/d", "postgres://h/d?schema=Robert%27);DROP",
                      "postgres://h/d?sslmode=maybe", "postgres://h/d?colour=red", "/var/lib/health.sqlite"])
    func refusesWithAClearError(_ url: String) {
        #expect(throws: HealthError.self) { try PostgresStoreConfiguration(url: url) }
    }
}
