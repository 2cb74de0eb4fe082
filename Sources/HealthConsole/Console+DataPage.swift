import HTTPTypes
import Foundation
import HealthAPI
import HealthModel
import HealthService
import Hummingbird

extension Console {
    /// The spans the Data page offers, in days.
    static let dataSpans = [7, 30, 90, 365]

    /// Data: daily steps merged by source priority with each source's own total beside them, sleep stages per night,
    /// resting heart rate and weight trends, energy in and out. Every number is the service's, as the CLI shows it
    /// (`healthbridge summary --type stepCount --from 30d --interval total --by-source`).
    ///
    /// Any period: `?days=7|30|90|365` (the last days up to now), `?month=2025-03`, or `?start=2025-03-01&end=2025-03-15`
    /// (days, end exclusive); previous/next move by the span's length. Example: `/data?start=2025-01-01&end=2025-02-01`.
    func dataPage(_ session: ConsoleSession, request: Request) async throws -> HTML {
        try await dataPage(session, request: request, of: DataView(service: service, path: "/data", title: "Data",
                                                                   heading: "Data", menu: "/data", sourcesLink: true))
    }

    /// Whose data the Data page shows: the console's person's own, or (``peopleDataPage(_:request:person:)``) what
    /// another person of the household shares with them, through a service acting as `person:<id>`.
    struct DataView {
        var service: HealthService
        /// The page's own path, which its period links and forms name.
        var path: String
        var title: String
        var heading: HTML
        /// The menu entry the page is under.
        var menu: String
        /// Whether the merge note links to the Sources page (the console's person's own priorities only).
        var sourcesLink: Bool
    }

    func dataPage(_ session: ConsoleSession, request: Request, of view: DataView) async throws -> HTML {
        let query = ConsoleForm(urlEncoded: request.uri.query ?? "")
        let period = try DataPeriod(query)
        let (start, end) = (period.start, period.end)
        let service = view.service
        let path = view.path
        async let steps = stepsSection(service, start: start, end: end, sourcesLink: view.sourcesLink)
        async let sleep = sleepSection(service, start: start, end: end)
        async let resting = trendSection(service, id: "resting", title: "Resting heart rate", type: "restingHeartRate",
                                         start: start, end: end, color: "#b91c1c")
        async let weight = trendSection(service, id: "weight", title: "Weight", type: "bodyMass", start: start, end: end,
                                        color: "#1d4ed8", connectGaps: true)
        async let energy = energySection(service, start: start, end: end)
        let spans = Self.dataSpans.map { span -> HTML in
            span == period.days ? "<li><a href=\"\(path)?days=\(span)\" aria-current=\"true\">\(Self.spanName(span))</a></li>"
                                : "<li><a href=\"\(path)?days=\(span)\">\(Self.spanName(span))</a></li>"
        }
        let sections = try await [steps.html, sleep, resting, weight, energy]
        // Previous / next: the same length before and after the period shown, from its resolved first and last day.
        let shown = try await steps.range
        let navigation: HTML = DataPeriod.neighbours(first: shown.first, endDay: shown.end).map { previous, next in
            """
            <nav aria-label="Period" class="spans"><ul>\
            <li><a id="data-previous" href="\(path)?start=\(previous.start)&amp;end=\(previous.end)">← \(previous.start) – \(previous.last)</a></li>\
            <li><a id="data-next" href="\(path)?start=\(next.start)&amp;end=\(next.end)">\(next.start) – \(next.last) →</a></li></ul></nav>
            """
        } ?? .empty
        let body: HTML = """
            <h1>\(view.heading)</h1>
            <p id="data-period">\(shown.first) – \(shown.last)</p>
            <nav aria-label="Time span" class="spans"><ul>\(spans)</ul></nav>
            \(navigation)
            <form method="get" action="\(path)" class="period"><label>Month <input type="month" name="month" value="\(String(shown.first.prefix(7)))"></label>
            <button type="submit">Show month</button></form>
            <form method="get" action="\(path)" class="period"><label>From <input type="date" name="start" value="\(shown.first)"></label>
            <label>to (excluded) <input type="date" name="end" value="\(shown.end)"></label> <button type="submit">Show</button></form>
            \(sections)
            """
        return ConsolePage.layout(title: view.title, current: view.menu, session: session,
                                  body: body)
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

    /// Daily steps, merged by priority; the period's merged total with which source won (each source's part of it
    /// beside its own total); the days with no steps recorded (missing, not 0). `range`: the period as resolved.
    func stepsSection(_ service: HealthService, start: String, end: String?, sourcesLink: Bool = true) async throws -> (html: HTML, range: (first: String, last: String, end: String)) {
        let daily = try await service.summaryPages(SummaryRequest(type: "stepCount", start: start, end: end,
                                                                  interval: "day", statistics: ["sum"]))
        let total = try await service.summary(SummaryRequest(type: "stepCount", start: start, end: end, interval: "total",
                                                             statistics: ["sum"], contributions: true))
        let coverage = try await service.coverage(CoverageRequest(type: "stepCount", start: start, end: end))
        let first = daily.buckets.first.map(Self.label) ?? String(daily.start.prefix(10))
        let last = daily.buckets.last.map(Self.label) ?? first
        let endDay = DataPeriod.day(last).flatMap { DataPeriod.adding(days: 1, to: $0) }.map(DataPeriod.string)
        let range = (first: first, last: last, end: endDay ?? String(daily.end.prefix(10)))
        let order = try await service.sources(SourcesRequest(type: "stepCount"))
        let ranks = Dictionary(order.sources.map { ($0.name, $0.rank ?? 0) }, uniquingKeysWith: { a, _ in a })
        guard let merged = total.buckets.first?.sum else {
            return ("""
                <section aria-labelledby="steps-h"><h2 id="steps-h">Steps</h2>
                <p id="steps-no-data">No steps recorded from \(first) to \(last): missing, not 0.</p></section>
                """, range)
        }
        let chart = SVGChart.bars(id: "steps", title: "Steps per day, merged by source priority (days without data are empty)",
                                  labels: daily.buckets.map(Self.label),
                                  series: [.init(name: "Steps", color: "#047857", values: daily.buckets.map(\.sum))],
                                  unit: "steps")
        let rows = (total.contributions ?? []).map { part -> [HTML] in
            ["\(ranks[part.source].map(String.init) ?? "–")", "\(part.source)",
             "<span class=\"num\">\(Figure.format(part.contribution))</span>",
             "<span class=\"num\">\(Figure.format(part.ownTotal))</span>"]
        }
        let missing = coverage.buckets.filter(\.noData).compactMap(\.date)
        let gaps: HTML = missing.isEmpty ? "<p id=\"steps-coverage\">Every day of the period has steps.</p>"
            : "<p id=\"steps-coverage\">No steps recorded (missing, not 0) on \(missing.count) day\(missing.count == 1 ? "" : "s"): <span class=\"missing-days\">\(missing.joined(separator: ", "))</span>.</p>"
        return ("""
            <section aria-labelledby="steps-h"><h2 id="steps-h">Steps</h2>
            <div class="pair">\(chart)
            <aside class="totals"><p class="big"><span id="steps-merged-total">\(Figure.format(merged))</span> steps</p>
            <p>merged over \(daily.buckets.count - missing.count) days with data: where sources overlap, the higher one in \(sourcesLink ? HTML("<a href=\"/sources#type-stepCount\">priority</a>") : HTML("priority")) counts.</p>
            \(ConsolePage.table(id: "steps-sources", ["Priority", "Source", "Counted in the total", "Own total"], rows))</aside></div>
            \(gaps)
            <p class="note">\(total.mergeNote)</p></section>
            """, range)
    }

    /// Sleep stages per night (minutes), attributed to the wake-up day.
    func sleepSection(_ service: HealthService, start: String, end: String?) async throws -> HTML {
        var result = try await service.sleep(SleepRequest(start: start, end: end))
        while let next = result.nextCursor {
            let page = try await service.sleep(SleepRequest(cursor: next))
            result.nights += page.nights
            result.nextCursor = page.nextCursor
        }
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
    func trendSection(_ service: HealthService, id: String, title: String, type: String, start: String, end: String?, color: String,
                      connectGaps: Bool = false) async throws -> HTML {
        let result = try await service.summaryPages(SummaryRequest(type: type, start: start, end: end, interval: "day",
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
    func energySection(_ service: HealthService, start: String, end: String?) async throws -> HTML {
        let energy = try await service.energy(EnergyRequest(start: start, end: end))
        guard energy.days.contains(where: { $0.eatenKcal != nil || $0.activeKcal != nil || $0.basalKcal != nil }) else {
            return "<section><h2>Energy in and out</h2><p>No energy recorded in this span.</p></section>"
        }
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

/// The period the Data page shows: the last `days` up to now, a month, or a start/end pair of days (end excluded).
///
/// ```swift
/// try DataPeriod(ConsoleForm(urlEncoded: "month=2025-03"))   // start "2025-03-01", end "2025-04-01"
/// ```
struct DataPeriod {
    var start: String
    var end: String?
    /// The span chosen among ``Console/dataSpans`` (nil for a month or a custom range).
    var days: Int?

    init(_ query: ConsoleForm) throws(HealthError) {
        if let month = query.value("month"), !month.isEmpty {
            guard let first = Self.day(month + "-01"), let next = Self.adding(months: 1, to: first) else {
                throw HealthError(.invalidRange, "month must be YYYY-MM, e.g. 2025-03")
            }
            start = Self.string(first); end = Self.string(next); days = nil
        } else if let from = query.value("start"), !from.isEmpty {
            guard let first = Self.day(from) else { throw HealthError(.invalidRange, "start must be a day, YYYY-MM-DD") }
            let to = query.value("end").flatMap { $0.isEmpty ? nil : $0 }
            if let to, Self.day(to) == nil { throw HealthError(.invalidRange, "end must be a day, YYYY-MM-DD") }
            start = Self.string(first); end = to; days = nil
        } else {
            let days = query.value("days").flatMap(Int.init).flatMap { Console.dataSpans.contains($0) ? $0 : nil } ?? 30
            start = "\(days)d"; end = nil; self.days = days
        }
    }

    /// The periods of the same length before and after `first` ..< `endDay` (days, `YYYY-MM-DD`).
    static func neighbours(first: String, endDay: String)
        -> (previous: (start: String, end: String, last: String), next: (start: String, end: String, last: String))? {
        guard let a = day(first), let b = day(endDay), b > a else { return nil }
        let length = Int((b.timeIntervalSince(a) / 86_400).rounded())
        guard length > 0, let before = adding(days: -length, to: a), let after = adding(days: length, to: b),
              let previousLast = adding(days: -1, to: a), let nextLast = adding(days: -1, to: after) else { return nil }
        return ((string(before), string(a), string(previousLast)), (string(b), string(after), string(nextLast)))
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()

    /// A `YYYY-MM-DD` day as midnight UTC (calendar days only, no zone), or nil.
    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1900...2200).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day))
        return date.flatMap { string($0) == text ? $0 : nil }
    }

    static func string(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    static func adding(days: Int, to date: Date) -> Date? { calendar.date(byAdding: .day, value: days, to: date) }
    static func adding(months: Int, to date: Date) -> Date? { calendar.date(byAdding: .month, value: months, to: date) }
}
