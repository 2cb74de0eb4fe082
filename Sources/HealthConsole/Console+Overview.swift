import HTTPTypes
import HealthModel
import Foundation
import HealthService

extension Console {
    /// Overview: the store's size and types, the last import, sharing, and the interfaces `serve` runs.
    func overviewPage(_ session: ConsoleSession) async throws -> HTML {
        let types = try await service.types()
        let last = try await service.imports().imports.first
        let sharing = try await service.sharingStatus()
        let clients = try await service.pairedClients().filter { !$0.isRevoked }
        let pending = try await service.accessRequests(status: .pending).requests.count
        var bytes = 0
        for suffix in ["", "-wal"] {
            let path = home.storeURL.path + suffix
            bytes += ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }
        let samples = types.types.reduce(0) { $0 + $1.count }
        let interfaces = configuration.interfaces.map { item -> [HTML] in ["\(item.name)", "<code>\(item.address)</code>"] }
        let lastImport: HTML = last.map { record -> HTML in
            "export of \(record.exportDate ?? "unknown date"): \(Figure.format(Double(record.samplesInserted ?? 0))) samples added"
        } ?? "none yet — see <a href=\"/import\">Import</a>"
        let top = types.types.sorted { $0.count > $1.count }.prefix(12).map { type -> [HTML] in
            ["\(type.displayName)", "\(Figure.format(Double(type.count)))", "\(type.last ?? "–")"]
        }
        let body: HTML = """
            <h1>Overview</h1>
            <dl class="facts" id="overview-facts">
            <div><dt>Store</dt><dd>\(Self.byteString(bytes)) on disk, <code>\(home.storeURL.path)</code></dd></div>
            <div><dt>Types</dt><dd>\(types.count) types, \(Figure.format(Double(samples))) records</dd></div>
            <div><dt>Last import</dt><dd>\(lastImport)</dd></div>
            <div><dt>Sharing</dt><dd>\(sharing.state == .active ? "on" : "stopped") · \(clients.count) paired device(s) · <a href="/pairing">Pairing</a></dd></div>
            <div><dt>Access requests</dt><dd>\(pending) pending · <a href="/access">Access</a></dd></div>
            <div><dt>Time zone</dt><dd>\(types.timeZone)</dd></div>
            </dl>
            <h2>Interfaces running</h2>
            \(ConsolePage.table(id: "interfaces", ["Interface", "Address"], interfaces))
            <h2>Largest types</h2>
            \(ConsolePage.table(["Type", "Records", "Latest"], Array(top)))
            """
        return ConsolePage.layout(title: "Overview", current: "/", session: session, body: body)
    }

    static func byteString(_ bytes: Int) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : "\(Figure.format(value)) \(units[unit])"
    }
}
