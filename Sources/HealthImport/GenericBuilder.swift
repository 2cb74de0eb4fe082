import Foundation
import HealthXML

/// Any other top-level element (Me, ExportDate, ActivitySummary, ClinicalRecord, Audiogram, VisionPrescription, or one
/// this version does not know), kept as a JSON object: attributes as keys (numbers as numbers), children as arrays
/// under their element name.
///
/// What is kept is bounded: at most ``Limits/maximumBytesPerElement`` bytes of names and values per element, and
/// what the import as a whole may still keep (``GenericBudget``). Children and attributes past the bound are dropped
/// and counted (``droppedChildren``, ``droppedAttributes``); the object then carries `"truncated": true` and the
/// importer reports the element. A hostile or broken export cannot make the importer hold more than the bound.
///
/// ```swift
/// var budget = GenericBudget()
/// var builder = GenericBuilder(start, budget: &budget)
/// builder.addChild(child, budget: &budget)
/// let json = GenericBuilder.json(builder.object())
/// ```
struct GenericBuilder {
    /// The bounds on what is kept.
    enum Limits {
        /// Bytes of attribute names and values (and child element names) kept per top-level element: 1 MiB, far above
        /// any real Audiogram, VisionPrescription or ClinicalRecord.
        static let maximumBytesPerElement = 1 << 20
        /// Bytes kept over a whole import for elements of all these kinds: 64 MiB.
        static let maximumBytesPerImport = 64 << 20
    }

    final class Node {
        let name: String
        var attributes: [String: String]
        var children: [Node] = []
        init(name: String, attributes: [String: String]) { self.name = name; self.attributes = attributes }
    }

    let name: String
    let line: Int
    let offset: Int
    let attributes: [String: String]
    private let root: Node
    private var stack: [Node]
    /// Open elements below a dropped one (their end tags pop nothing).
    private var droppedDepth = 0
    /// Bytes kept so far, and the bound for this element.
    private(set) var keptBytes = 0
    private let allowance: Int
    private(set) var droppedChildren = 0
    private(set) var droppedAttributes = 0

    var truncated: Bool { droppedChildren > 0 || droppedAttributes > 0 }

    init(_ element: XMLStartElement, budget: inout GenericBudget) {
        name = element.name.string
        line = element.line
        offset = element.offset
        allowance = min(Limits.maximumBytesPerElement, budget.remaining)
        var kept = name.utf8.count
        var dropped = 0
        attributes = Self.attributes(element, kept: &kept, allowance: allowance, dropped: &dropped)
        keptBytes = kept
        droppedAttributes = dropped
        root = Node(name: name, attributes: attributes)
        stack = [root]
        budget.remaining -= min(budget.remaining, keptBytes)
    }

    /// The attributes that fit in `allowance` bytes, in document order.
    static func attributes(_ element: XMLStartElement, kept: inout Int, allowance: Int, dropped: inout Int)
        -> [String: String]
    {
        var result: [String: String] = [:]
        for attribute in element.attributes {
            let size = attribute.name.bytes.count + attribute.value.rawBytes.count
            guard kept + size <= allowance else {
                dropped += 1
                continue
            }
            kept += size
            result[attribute.name.string] = attribute.value.string
        }
        return result
    }

    mutating func addChild(_ element: XMLStartElement, budget: inout GenericBudget) {
        let nameSize = element.name.bytes.count
        guard droppedDepth == 0, keptBytes + nameSize <= allowance else {
            droppedChildren += 1
            if !element.isSelfClosing { droppedDepth += 1 }
            return
        }
        var kept = keptBytes + nameSize
        var dropped = 0
        let attributes = Self.attributes(element, kept: &kept, allowance: allowance, dropped: &dropped)
        budget.remaining -= min(budget.remaining, kept - keptBytes)
        keptBytes = kept
        droppedAttributes += dropped
        let node = Node(name: element.name.string, attributes: attributes)
        stack.last?.children.append(node)
        if !element.isSelfClosing { stack.append(node) }
    }

    mutating func endChild(_ element: XMLEndElement) {
        if droppedDepth > 0 {
            droppedDepth -= 1
        } else if stack.count > 1 {
            stack.removeLast()
        }
    }

    func object() -> [String: Any] {
        var object = Self.object(root, includeName: name != "ActivitySummary")
        if truncated { object["truncated"] = true }
        return object
    }

    static func object(_ node: Node, includeName: Bool) -> [String: Any] {
        var result: [String: Any] = [:]
        if includeName { result["element"] = node.name }
        for (key, value) in node.attributes {
            if let number = Double(value), number.isFinite, !value.contains(" ") { result[key] = number } else { result[key] = value }
        }
        var grouped: [String: [[String: Any]]] = [:]
        for child in node.children { grouped[child.name, default: []].append(object(child, includeName: false)) }
        for (key, values) in grouped { result[key] = values }
        return result
    }

    static func json(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// What an import may still keep of generic elements, in bytes (``GenericBuilder/Limits/maximumBytesPerImport``).
struct GenericBudget {
    var remaining = GenericBuilder.Limits.maximumBytesPerImport
}
