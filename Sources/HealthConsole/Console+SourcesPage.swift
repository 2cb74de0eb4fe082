import HTTPTypes
import Foundation
import HealthAPI
import HealthModel
import HealthService
import Hummingbird

extension Console {
    /// Sources: for each type recorded by more than one source, the priority order the merge follows, with buttons to
    /// move a source up or down and to go back to the default order.
    func sourcesPage(_ session: ConsoleSession) async throws -> HTML {
        var sections: [HTML] = []
        for type in try await service.types().types where type.kind == "quantity" || type.kind == "category" {
            let result = try await service.sources(SourcesRequest(type: type.type))
            guard result.sources.count > 1 else { continue }
            let order = Self.order(result)
            let items = order.enumerated().map { index, name -> HTML in
                let up: HTML = index > 0
                    ? ConsolePage.form("/sources/move", session: session, fields: [("type", type.type), ("source", name), ("move", "up")],
                                       button: "↑", label: "Move \(name) up")
                    : .empty
                let down: HTML = index < order.count - 1
                    ? ConsolePage.form("/sources/move", session: session, fields: [("type", type.type), ("source", name), ("move", "down")],
                                       button: "↓", label: "Move \(name) down")
                    : .empty
                return "<li><span class=\"rank\">\(index + 1)</span> <span class=\"source\">\(name)</span> \(up)\(down)</li>"
            }
            let reset: HTML = result.userOrdered == true
                ? ConsolePage.form("/sources/move", session: session, fields: [("type", type.type), ("move", "reset")],
                                   button: "Default order", style: "secondary")
                : "<span class=\"muted\">default order</span>"
            sections.append("""
                <section id="type-\(type.type)" aria-labelledby="h-\(type.type)"><h2 id="h-\(type.type)">\(type.displayName)</h2>
                <ol class="priority" aria-label="\(type.displayName) sources, highest priority first">\(items)</ol>\(reset)</section>
                """)
        }
        let body: HTML = """
            <h1>Sources</h1>
            <p>When two sources recorded the same time, the one higher in the list counts (as in Apple Health). The Data page and <code>healthbridge summary</code> follow this order.</p>
            \(sections.isEmpty ? "<p>No type has more than one source yet.</p>" : HTML.join(sections))
            """
        return ConsolePage.layout(title: "Sources", current: "/sources", session: session, body: body)
    }

    /// A fragment identifier: letters and digits only.
    static func anchor(_ text: String?) -> String { String((text ?? "").filter { $0.isASCII && ($0.isLetter || $0.isNumber) }) }

    /// The priority order, highest first.
    static func order(_ result: SourcesResult) -> [String] {
        result.priorityOrder ?? result.sources.sorted { ($0.rank ?? .max) < ($1.rank ?? .max) }.map(\.name)
    }

    /// `POST /sources/move`: one step up or down, or back to the default order.
    func moveSource(_ form: ConsoleForm) async throws -> Response {
        guard let type = form.value("type"), let move = form.value("move") else {
            throw HealthError(.invalidArgument, "name a type and a move (up, down or reset)")
        }
        if move == "reset" {
            let result = try await service.priority(PriorityRequest(type: type, reset: true))
            return redirect("/sources#type-\(Self.anchor(result.type))")
        }
        guard let source = form.value("source"), move == "up" || move == "down" else {
            throw HealthError(.invalidArgument, "name a source and a move (up or down)")
        }
        var order = Self.order(try await service.sources(SourcesRequest(type: type)))
        guard let index = order.firstIndex(of: source) else {
            throw HealthError(.notFound, "\(source) has no \(type) samples")
        }
        let other = move == "up" ? index - 1 : index + 1
        if order.indices.contains(other) { order.swapAt(index, other) }
        let result = try await service.priority(PriorityRequest(type: type, set: order))
        return redirect("/sources#type-\(Self.anchor(result.type))")
    }
}
