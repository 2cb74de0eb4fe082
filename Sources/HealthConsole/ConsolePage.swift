/// The frame every page shares: head, skip link, navigation, sign-out, and small form helpers.
enum ConsolePage {
    static let sections: [(path: String, name: String)] = [
        ("/", "Overview"), ("/data", "Data"), ("/sources", "Sources"), ("/access", "Access"),
        ("/pairing", "Pairing"), ("/people", "People"), ("/audit", "Audit"), ("/import", "Import"),
    ]

    static func layout(title: String, current: String, session: ConsoleSession?, body: HTML) -> HTML {
        let nav: HTML = session == nil ? .empty : """
            <nav aria-label="Sections"><ul>\(sections.map { item -> HTML in
                item.path == current
                    ? "<li><a href=\"\(item.path)\" aria-current=\"page\">\(item.name)</a></li>"
                    : "<li><a href=\"\(item.path)\">\(item.name)</a></li>"
            })</ul>\(form("/logout", session: session, button: "Sign out", style: "link"))</nav>
            """
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · HealthBridge</title>
            <link rel="icon" href="/static/icon.svg" type="image/svg+xml">
            <link rel="stylesheet" href="/static/console.css">
            <script src="/static/console.js" defer></script>
            </head><body>
            <a class="skip" href="#main">Skip to content</a>
            <header><p class="brand">HealthBridge</p>\(nav)</header>
            <main id="main" tabindex="-1">\(body)</main>
            </body></html>
            """
    }

    /// A POST form of hidden fields and one button, carrying the session's CSRF token.
    static func form(_ action: String, session: ConsoleSession?, fields: [(String, String)] = [], button: String,
                     label: String? = nil, style: String = "") -> HTML {
        let hidden = fields.map { field -> HTML in "<input type=\"hidden\" name=\"\(field.0)\" value=\"\(field.1)\">" }
        let aria: HTML = label.map { text -> HTML in " aria-label=\"\(text)\"" } ?? .empty
        return """
            <form method="post" action="\(action)" class="inline"><input type="hidden" name="csrf" value="\(session?.csrf ?? "")">\(hidden)<button type="submit" class="\(style)"\(aria)>\(button)</button></form>
            """
    }

    /// A table with a header row.
    static func table(id: String? = nil, _ headers: [String], _ rows: [[HTML]]) -> HTML {
        let idAttribute: HTML = id.map { value -> HTML in " id=\"\(value)\"" } ?? .empty
        return """
            <div class="scroll"><table\(idAttribute)><thead><tr>\(headers.map { h -> HTML in "<th scope=\"col\">\(h)</th>" })</tr></thead>
            <tbody>\(rows.map { row -> HTML in "<tr>\(row.map { cell -> HTML in "<td>\(cell)</td>" })</tr>" })</tbody></table></div>
            """
    }
}
