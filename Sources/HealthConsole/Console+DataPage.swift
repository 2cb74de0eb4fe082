import HTTPTypes
import Foundation
import HealthModel
import HealthService
import Hummingbird

extension Console {
    /// The spans the Data page offers, in days.
    static let dataSpans = [7, 30, 90, 365]

    /// Data: daily steps merged by source priority with each source's own total beside them, sleep stages per night,
    /// resting heart rate and weight trends, energy in and out. Every number is the service's, as the CLI shows it
    /// (`healthbridge summary --type stepCount --from 30d --interval total --by-source`).
    func dataPage(_ session: ConsoleSession, request: Request) async throws -> HTML {
        let query = ConsoleForm(urlEncoded: request.uri.query ?? "")
        let days = query.value("days").flatMap(Int.init).flatMap { Self.dataSpans.contains($0) ? $0 : nil } ?? 30
        let start = "\(days)d"
        async let steps = stepsSection(start: start)
        async let sleep = sleepSection(start: start)
        async let resting = trendSection(id: "resting", title: "Resting heart rate", type: "restingHeartRate", start: start,
                                         color: "#b91c1c")
        async let weight = trendSection(id: "weight", title: "Weight", type: "bodyMass", start: start, color: "#1d4ed8",
                                        connectGaps: true)
        async let energy = energySection(start: start)
        let spans = Self.dataSpans.map { span -> HTML in
            span == days ? "<li><a href=\"/data?days=\(span)\" aria-current=\"true\">\(Self.spanName(span))</a></li>"
                         : "<li><a href=\"/data?days=\(span)\">\(Self.spanName(span))</a></li>"
        }
        let sections = try await [steps, sleep, resting, weight, energy]
        let body: HTML = """
            <h1>Data</h1>
            <nav aria-label="Time span" class="spans"><ul>\(spans)</ul></nav>
            \(sections)
            """
        return ConsolePage.layout(title: "Data", current: "/data", session: session, body: body)
    }

    static func spanName(_ days: Int) -> String {
        switch days {
        case 7: return "7 days"
        case 30: return "30 days"
        case 90: return "90 days"
        default: return "1 year"
        }
    }

    static func label(_ bucket: SummaryBucket) -> String { bucket.date ?? String(bucket.start.prefix(16)) }

    /// Daily steps, merged by priority, and the span's totals: merged, and each source alone.
    func stepsSection(start: String) async throws -> HTML {
        let daily = try await service.summaryPages(SummaryRequest(type: "stepCount", start: start, interval: "day",
                                                                  statistics: ["sum"]))
        let total = try await service.summary(SummaryRequest(type: "stepCount", start: start, interval: "total",
                                                             statistics: ["sum"], bySource: true))
        let order = try await service.sources(SourcesRequest(type: "stepCount"))
        let chart = SVGChart.bars(id: "steps", title: "Steps per day, merged by source priority",
                                  labels: daily.buckets.map(Self.label),
                                  series: [.init(name: "Steps", color: "#047857", values: daily.buckets.map(\.sum))],
                                  unit: "steps")
        let ranks = Dictionary(order.sources.map { ($0.name, $0.rank ?? 0) }, uniquingKeysWith: { a, _ in a })
        let rows = (total.bySource ?? []).sorted { (ranks[$0.source] ?? .max) < (ranks[$1.source] ?? .max) }.map { series -> [HTML] in
            ["\(ranks[series.source].map(String.init) ?? "–")", "\(series.source)",
             "<span class=\"num\">\(Figure.format(series.buckets.first?.sum ?? 0))</span>"]
        }
        let merged = total.buckets.first?.sum ?? 0
        return """
            <section aria-labelledby="steps-h"><h2 id="steps-h">Steps</h2>
            <div class="pair">\(chart)
            <aside class="totals"><p class="big"><span id="steps-merged-total">\(Figure.format(merged))</span> steps</p>
            <p>merged over \(daily.buckets.count) days: where sources overlap, the higher one in <a href="/sources#type-stepCount">priority</a> counts.</p>
            \(ConsolePage.table(id: "steps-sources", ["Priority", "Source alone", "Steps"], rows))</aside></div>
            <p class="note">\(total.mergeNote)</p></section>
            """
    }

    /// Sleep stages per night (minutes), attributed to the wake-up day.
    func sleepSection(start: String) async throws -> HTML {
        let result = try await service.sleep(SleepRequest(start: start))
        guard !result.nights.isEmpty else { return "<section><h2>Sleep</h2><p>No sleep recorded in this span.</p></section>" }
        let nights = result.nights
        let chart = SVGChart.bars(id: "sleep", title: "Sleep stages per night", labels: nights.map(\.date), series: [
            .init(name: "Deep", color: "#1e3a8a", values: nights.map(\.deepMinutes)),
            .init(name: "Core", color: "#2563eb", values: nights.map(\.coreMinutes)),
            .init(name: "REM", color: "#7c3aed", values: nights.map(\.remMinutes)),
            .init(name: "Asleep (unspecified)", color: "#0891b2", values: nights.map(\.unspecifiedMinutes)),
            .init(name: "Awake", color: "#d97706", values: nights.map(\.awakeMinutes)),
        ], unit: "min")
        let average: HTML = result.averageAsleepMinutes.map { value -> HTML in
            "<p>Average asleep: <span id=\"sleep-average\">\(Figure.format(value))</span> minutes a night.</p>"
        } ?? .empty
        return "<section aria-labelledby=\"sleep-h\"><h2 id=\"sleep-h\">Sleep</h2>\(chart)\(average)</section>"
    }

    /// A daily average as a line, with gaps on days without a value.
    func trendSection(id: String, title: String, type: String, start: String, color: String,
                      connectGaps: Bool = false) async throws -> HTML {
        let result = try await service.summaryPages(SummaryRequest(type: type, start: start, interval: "day",
                                                                   statistics: ["average"]))
        guard result.buckets.contains(where: { $0.average != nil }) else {
            return "<section><h2>\(title)</h2><p>No \(title.lowercased()) recorded in this span.</p></section>"
        }
        let chart = SVGChart.lines(id: id, title: "\(title) (daily average)", labels: result.buckets.map(Self.label),
                                   series: [.init(name: title, color: color, values: result.buckets.map(\.average))],
                                   unit: result.unit, connectGaps: connectGaps)
        return "<section aria-labelledby=\"\(id)-h\"><h2 id=\"\(id)-h\">\(title)</h2>\(chart)</section>"
    }

    /// Energy eaten against energy burned (active + resting, the service's sums), per day.
    func energySection(start: String) async throws -> HTML {
        let energy = try await service.energy(EnergyRequest(start: start))
        let labels = energy.days.map(\.date)
        let chart = SVGChart.lines(id: "energy", title: "Energy in and out per day", labels: labels, series: [
            .init(name: "Eaten", color: "#047857", values: energy.days.map(\.eatenKcal)),
            .init(name: "Burned (active + resting)", color: "#b91c1c", values: energy.days.map(\.burnedKcal)),
            .init(name: "Active burned", color: "#c2410c", values: energy.days.map(\.activeKcal)),
            .init(name: "Resting burned", color: "#6d28d9", values: energy.days.map(\.basalKcal)),
        ], unit: energy.unit)
        return "<section aria-labelledby=\"energy-h\"><h2 id=\"energy-h\">Energy in and out</h2>\(chart)</section>"
    }
}
