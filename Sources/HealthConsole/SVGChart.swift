import Foundation

/// Charts as inline SVG: each bar or point carries its number in a `<title>` (shown on hover and read by screen
/// readers), and every chart comes with a table of the same numbers. Only layout is computed here; the numbers come
/// from the service as they are.
enum SVGChart {
    /// One series: a name, a colour (with enough contrast on white) and a value per label (nil: no data).
    struct Series: Sendable {
        var name: String
        var color: String
        var values: [Double?]
    }

    static let width = 720.0
    static let height = 220.0
    static let left = 52.0
    static let bottom = 24.0
    static let top = 10.0

    /// Bars, the series stacked on each other, one bar per label.
    static func bars(id: String, title: String, labels: [String], series: [Series], unit: String) -> HTML {
        let totals = labels.indices.map { index in series.reduce(0.0) { total, item in total + max(0, (item.values[safe: index] ?? nil) ?? 0) } }
        let scale = niceMaximum(totals.max() ?? 0)
        let plotWidth = width - left - 8
        let plotHeight = height - top - bottom
        let slot = plotWidth / Double(max(labels.count, 1))
        let barWidth = max(1, slot * 0.8)
        var body = ""
        body.reserveCapacity(labels.count * series.count * 120)
        for (index, label) in labels.enumerated() {
            var base = 0.0
            let x = left + Double(index) * slot + (slot - barWidth) / 2
            for item in series {
                guard let value = item.values[safe: index] ?? nil, value > 0 else { continue }
                let h = value / scale * plotHeight
                let y = top + plotHeight - (base + h)
                body += "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(barWidth))\" height=\"\(f(max(h, 0.5)))\" fill=\"\(item.color)\"><title>"
                HTML.escape("\(label): \(series.count > 1 ? item.name + " " : "")\(Figure.format(value)) \(unit)", into: &body)
                body += "</title></rect>"
                base += h
            }
        }
        return frame(id: id, title: title, labels: labels, scale: scale, unit: unit, body: body, series: series)
    }

    /// Lines with a dot per value; gaps where a label has no value, unless `connectGaps` (a measurement taken every
    /// few days, such as weight).
    static func lines(id: String, title: String, labels: [String], series: [Series], unit: String,
                      connectGaps: Bool = false) -> HTML {
        let values = series.flatMap { $0.values.compactMap { $0 } }
        let low = values.min() ?? 0
        let high = values.max() ?? 1
        // Four round steps from a round floor below the lowest value to above the highest.
        var step = niceStep(max(high - low, 0.4) * 1.2 / 4)
        var floor = max(0, ((low - step / 2) / step).rounded(.down) * step)
        while floor + 4 * step < high + step / 4 {
            step = niceStep(step * 1.01)
            floor = max(0, ((low - step / 2) / step).rounded(.down) * step)
        }
        let ceiling = floor + 4 * step
        let plotWidth = width - left - 8
        let plotHeight = height - top - bottom
        let slot = plotWidth / Double(max(labels.count, 1))
        func point(_ index: Int, _ value: Double) -> (Double, Double) {
            (left + (Double(index) + 0.5) * slot, top + plotHeight - (value - floor) / (ceiling - floor) * plotHeight)
        }
        var body = ""
        for item in series {
            var path = ""
            var pen = false
            for (index, value) in item.values.enumerated() {
                guard let value else {
                    if !connectGaps { pen = false }
                    continue
                }
                let (x, y) = point(index, value)
                path += (pen ? "L" : "M") + f(x) + "," + f(y)
                pen = true
            }
            body += "<path d=\"\(path)\" fill=\"none\" stroke=\"\(item.color)\" stroke-width=\"2\"/>"
            let radius = labels.count > 120 ? 1.5 : 3
            for (index, value) in item.values.enumerated() {
                guard let value else { continue }
                let (x, y) = point(index, value)
                body += "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(radius)\" fill=\"\(item.color)\"><title>"
                HTML.escape("\(labels[index]): \(series.count > 1 ? item.name + " " : "")\(Figure.format(value)) \(unit)", into: &body)
                body += "</title></circle>"
            }
        }
        return frame(id: id, title: title, labels: labels, scale: ceiling, floor: floor, unit: unit, body: body,
                     series: series)
    }

    /// The axes, grid, labels, legend and the table around a chart's marks.
    static func frame(id: String, title: String, labels: [String], scale: Double, floor: Double = 0, unit: String,
                      body: String, series: [Series]) -> HTML {
        let plotHeight = height - top - bottom
        var grid = ""
        for step in 0...4 {
            let value = floor + (scale - floor) * Double(step) / 4
            let y = top + plotHeight - plotHeight * Double(step) / 4
            grid += "<line x1=\"\(f(left))\" x2=\"\(f(width - 8))\" y1=\"\(f(y))\" y2=\"\(f(y))\" stroke=\"#d0d4da\" stroke-width=\"1\"/>"
            grid += "<text x=\"\(f(left - 6))\" y=\"\(f(y + 4))\" text-anchor=\"end\" font-size=\"12\" fill=\"#374151\">\(Figure.format(value, digits: 1))</text>"
        }
        let slot = (width - left - 8) / Double(max(labels.count, 1))
        let every = max(1, Int((Double(labels.count) / 7).rounded(.up)))
        for (index, label) in labels.enumerated() where index % every == 0 {
            let x = left + (Double(index) + 0.5) * slot
            grid += "<text x=\"\(f(x))\" y=\"\(f(height - 6))\" text-anchor=\"middle\" font-size=\"12\" fill=\"#374151\">"
            HTML.escape(shortLabel(label), into: &grid)
            grid += "</text>"
        }
        let legend: HTML = series.count > 1
            ? "<ul class=\"legend\">\(series.map { item -> HTML in "<li><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect width=\"12\" height=\"12\" fill=\"\(item.color)\"/></svg> \(item.name)</li>" })</ul>"
            : .empty
        let header: HTML = "<tr><th scope=\"col\">Date</th>\(series.map { item -> HTML in "<th scope=\"col\">\(item.name) (\(unit))</th>" })</tr>"
        var rows = ""
        rows.reserveCapacity(labels.count * 40)
        for (index, label) in labels.enumerated().reversed() {
            rows += "<tr><th scope=\"row\">"
            HTML.escape(label, into: &rows)
            rows += "</th>"
            for item in series {
                rows += "<td>" + ((item.values[safe: index] ?? nil).map { Figure.format($0) } ?? "–") + "</td>"
            }
            rows += "</tr>"
        }
        return """
            <figure class="chart" id="\(id)">
            <div class="plot"><svg viewBox="0 0 \(f(width)) \(f(height))" role="img" aria-labelledby="\(id)-title" preserveAspectRatio="xMinYMin meet">
            <title id="\(id)-title">\(title)</title>\(HTML(raw: grid))\(HTML(raw: body))</svg></div>
            <figcaption>\(title)</figcaption>\(legend)
            <details><summary>Table of \(title)</summary><div class="scroll"><table id="\(id)-table">\(header)\(HTML(raw: rows))</table></div></details>
            </figure>
            """
    }

    /// A round step (1, 2, 2.5 or 5 times a power of ten) at least `value`.
    static func niceStep(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let magnitude = pow(10, (log10(value)).rounded(.down))
        for step in [1.0, 2, 2.5, 5, 10] where step * magnitude >= value { return step * magnitude }
        return 10 * magnitude
    }

    /// A round maximum for the axis above `value`.
    static func niceMaximum(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let magnitude = pow(10, (log10(value)).rounded(.down))
        for step in [1.0, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10] where step * magnitude >= value { return step * magnitude }
        return 10 * magnitude
    }

    /// `11-24` from `2026-11-24`.
    static func shortLabel(_ label: String) -> String {
        label.count == 10 ? String(label.dropFirst(5)) : label
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
