import Testing
import HealthModel

/// A ``HealthError`` keeps a neutral message; its hint is rendered by each interface in its own words.
@Suite struct HealthErrorHintTests {
    static let error = HealthError(.invalidType, "unknown type 'stepz'", argument: "type", hint: .listTypes)

    @Test func theMessageIsNeutralAndTheHintRenderedByTheInterface() {
        #expect(Self.error.message == "unknown type 'stepz'")
        #expect(Self.error.argument == "type")
        let mcp = Self.error.rendered { $0 == .listTypes ? "list_types lists them" : nil }
        #expect(mcp.message == "unknown type 'stepz' (list_types lists them)")
        #expect(mcp.description == "HEALTH_INVALID_TYPE: unknown type 'stepz' (list_types lists them)")
        #expect(mcp.hint == nil && mcp.code == .invalidType && mcp.argument == "type")
        // Rendered once: a second interface's words are not added to the first's.
        #expect(mcp.rendered { _ in "`healthbridge types` lists them" } == mcp)
    }

    @Test func anInterfaceWithoutWordsForAHintLeavesTheMessageAsItIs() {
        #expect(Self.error.rendered { _ in nil }.message == "unknown type 'stepz'")
        let plain = HealthError(.invalidRange, "a sample before 1900")
        #expect(plain.rendered { _ in "never used" } == plain)
    }

    @Test func theWireShapeIsUnchanged() throws {
        let body = Self.error.rendered { _ in "list_types lists them" }.envelope.error
        #expect(body.code == .invalidType && body.message.hasSuffix("(list_types lists them)") && body.deniedTypes == nil)
    }
}
