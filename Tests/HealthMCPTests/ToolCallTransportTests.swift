import Foundation
import HealthMCP
import MCP
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("MCP tool calls answered by ToolCallTransport")
struct ToolCallTransportTests {
    /// Runs a server on pipes (with or without the tool-call transport), writes `lines`, and returns the answers by
    /// id. With `expecting`, reads until those ids are answered, then closes stdin; without, closes stdin at once and
    /// returns what was answered.
    static func answers(to lines: [String], shortcut: Bool, expecting: Set<Int>? = nil) async throws
        -> [Int: [String: Any]]
    {
        let (serverIn, clientOut) = try StdioTransportTests.makePipe()
        let (clientIn, serverOut) = try StdioTransportTests.makePipe()
        let toolbox = HealthToolbox(service: try await Fixture.service())
        let server = await HealthMCPServer.make(toolbox: toolbox)
        let stdio = BlockingStdioTransport(input: serverIn, output: serverOut)
        if shortcut {
            try await server.start(transport: ToolCallTransport(stdio, toolbox: toolbox, logger: stdio.logger))
        } else {
            try await server.start(transport: stdio)
        }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(clientOut, $0.baseAddress, $0.count) }
        var byID: [Int: [String: Any]] = [:]
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        func collect() throws {
            while let newline = output.firstIndex(of: UInt8(ascii: "\n")) {
                let line = output[output.startIndex..<newline]
                output = Data(output[(newline + 1)...])
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
                if let id = object["id"] as? Int { byID[id] = object }
            }
        }
        if let expecting {
            while !expecting.isSubset(of: Set(byID.keys)) {
                let count = buffer.withUnsafeMutableBytes { read(clientIn, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                output.append(contentsOf: buffer[0..<count])
                try collect()
            }
        }
        close(clientOut)
        await server.waitUntilCompleted()
        close(serverOut)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(clientIn, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        try collect()
        close(serverIn); close(clientIn)
        return byID
    }

    static let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#
    static let initialized = #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#

    static func call(_ id: Int, _ tool: String, _ arguments: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments)}}"#
    }

    @Test("answers as the SDK does: same results and errors for the same calls; other methods pass through")
    func sameAsSDK() async throws {
        let lines = [Self.initialize, Self.initialized, #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
                     Self.call(3, "list_types", "{}"), Self.call(4, "latest", #"{"type":"nope"}"#),
                     Self.call(5, "no_such_tool", "{}"),
                     Self.call(6, "query_samples", #"{"type":"heartRate","limit":3,"order":"asc"}"#)]
        let ids: Set<Int> = [1, 2, 3, 4, 5, 6]
        let fast = try await Self.answers(to: lines, shortcut: true, expecting: ids)
        let sdk = try await Self.answers(to: lines, shortcut: false, expecting: ids)
        #expect(Set(fast.keys) == ids)
        #expect(((fast[2]?["result"] as? [String: Any])?["tools"] as? [Any])?.count == HealthToolbox.toolNames.count)
        // list_types (3) tells the current time: compare its fields; the others must be equal.
        let types = (fast[3]?["result"] as? [String: Any])?["structuredContent"] as? [String: Any]
        let sdkTypes = (sdk[3]?["result"] as? [String: Any])?["structuredContent"] as? [String: Any]
        #expect(types.map { Set($0.keys) } == sdkTypes.map { Set($0.keys) })
        for id in 4...6 {
            let ours = try #require(fast[id]?["result"] as? [String: Any])
            let theirs = try #require(sdk[id]?["result"] as? [String: Any])
            let canonical = { (object: [String: Any]) in
                String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            }
            #expect(try canonical(ours) == canonical(theirs), "call \(id)")
        }
        #expect((fast[4]?["result"] as? [String: Any])?["isError"] as? Bool == true)
    }

    @Test("every call received before stdin closes is answered, in any order")
    func pipelinedCallsAllAnswered() async throws {
        var lines = [Self.initialize, Self.initialized]
        for id in 10..<110 { lines.append(Self.call(id, "latest", #"{"type":"bodyMass"}"#)) }
        let answers = try await Self.answers(to: lines, shortcut: true)
        #expect(Set(answers.keys) == Set([1] + Array(10..<110)))
        let result = answers[42]?["result"] as? [String: Any]
        #expect((result?["structuredContent"] as? [String: Any])?["type"] as? String == "bodyMass")
    }
}
