import HTTPTypes
import Foundation
import HealthAPI
import HealthModel
import HealthService
import Hummingbird

extension Console {
    /// The types the People page offers to share with a checkbox each: the Data page's (more can be typed).
    static let shareableTypes: [(type: String, name: String)] = [
        ("stepCount", "Steps"), ("sleepAnalysis", "Sleep"), ("restingHeartRate", "Resting heart rate"),
        ("bodyMass", "Weight"), ("activeEnergyBurned", "Active energy"), ("basalEnergyBurned", "Resting energy"),
        ("dietaryEnergyConsumed", "Energy eaten"),
    ]

    /// People: what the others of the household share with this person (each with a link to their Data page, read
    /// through the grant), what this person shares with whom (change or stop it), and for the household's owner the
    /// people of the household with a form to add one.
    func peoplePage(_ session: ConsoleSession) async throws -> HTML {
        guard let household else {
            return ConsolePage.layout(title: "People", current: "/people", session: session, body: """
                <h1>People</h1><p id="no-household">This console runs without a household: sharing between people is not available here.</p>
                """)
        }
        let people = try household.household.people()
        let me = people.first { $0.id == person }
        let sharedWithMe = try await household.sharedWith(person)
        let sharedByMe = try await household.sharedBy(person)
        let others = people.filter { $0.id != person }

        let withMeRows = sharedWithMe.map { entry -> [HTML] in
            ["\(entry.personName) (<code>\(entry.person)</code>)", "\(entry.read)",
             "<a href=\"/people/\(entry.person)/data\" id=\"view-\(entry.person)\">View their data</a>"]
        }
        let byMeRows = sharedByMe.map { entry -> [HTML] in
            ["\(entry.caregiverName) (<code>\(entry.caregiver)</code>)", "\(entry.read)",
             ConsolePage.form("/people/share", session: session, fields: [("caregiver", entry.caregiver), ("stop", "1")],
                              button: "Stop sharing", label: "Stop sharing with \(entry.caregiverName)", style: "secondary")]
        }
        let choices = Self.shareableTypes.map { item -> HTML in
            "<label class=\"check\"><input type=\"checkbox\" name=\"type\" value=\"\(item.type)\"> \(item.name)</label>"
        }
        let shareForm: HTML = others.isEmpty ? "<p>Nobody else is in the household yet.</p>" : """
            <form method="post" action="/people/share" id="share-form"><input type="hidden" name="csrf" value="\(session.csrf)">
            <label>With <select name="caregiver">\(others.map { p -> HTML in "<option value=\"\(p.id)\">\(p.name) (\(p.id))</option>" })</select></label>
            <fieldset><legend>Types they may read</legend>\(choices)
            <label class="wide">Other types, comma-separated (<code>*</code> for all) <input type="text" name="types" placeholder="heartRate, bloodGlucose"></label></fieldset>
            <button type="submit">Share</button></form>
            <p class="note">What you share replaces what you shared with them before. They can read it, never write; every time they look, it is in your <a href="/audit">audit log</a>.</p>
            """
        let householdSection: HTML
        if person == Household.ownerID {
            let rows = people.map { p -> [HTML] in
                ["<code>\(p.id)</code>", "\(p.name)", "\(p.id == Household.ownerID ? "–" : ISO8601.dateString(p.created, timeZone: service.homeTimeZone))"]
            }
            householdSection = """
                <section aria-labelledby="household-h"><h2 id="household-h">The household</h2>
                \(ConsolePage.table(id: "household", ["Id", "Name", "Added"], rows))
                <form method="post" action="/people/add" id="add-person"><input type="hidden" name="csrf" value="\(session.csrf)">
                <label>Name <input type="text" name="name" required maxlength="100"></label>
                <label>Id (optional) <input type="text" name="id" pattern="[a-z0-9][a-z0-9-]{0,39}" maxlength="40"></label>
                <button type="submit">Add a person</button></form>
                <p class="note">Each person has data, devices, grants and an audit log of their own. Serve them with <code>healthbridge serve --person ID</code>; remove one with <code>healthbridge people remove ID --yes</code>.</p></section>
                """
        } else {
            householdSection = .empty
        }
        let body: HTML = """
            <h1>People</h1>
            <p>You are <strong>\(me?.name ?? person)</strong> (<code>\(person)</code>). Nobody sees your data unless you share it here.</p>
            <section aria-labelledby="with-me-h"><h2 id="with-me-h">Shared with you</h2>
            \(withMeRows.isEmpty ? "<p id=\"nothing-shared-with-me\">Nobody shares data with you.</p>" : ConsolePage.table(id: "shared-with-me", ["Person", "You may read", ""], withMeRows))</section>
            <section aria-labelledby="by-me-h"><h2 id="by-me-h">What you share</h2>
            \(byMeRows.isEmpty ? "<p id=\"nothing-shared-by-me\">You share nothing.</p>" : ConsolePage.table(id: "shared-by-me", ["With", "They may read", ""], byMeRows))
            \(shareForm)</section>
            \(householdSection)
            """
        return ConsolePage.layout(title: "People", current: "/people", session: session, body: body)
    }

    /// `GET /people/ID/data`: another person's Data page, as far as they share it with this console's person (the
    /// types not shared are empty, as they would be with no data). Recorded in that person's audit log.
    func sharedDataPage(_ session: ConsoleSession, request: Request, person other: String) async throws -> HTML {
        guard let household else { throw HealthError(.notFound, "this console runs without a household") }
        let view = try await household.view(of: other, for: person)
        let name = try household.household.people().first { $0.id == other }?.name ?? other
        let page = try await dataPage(session, request: request, of: DataView(
            service: view, path: "/people/\(other)/data", title: "\(name)'s data",
            heading: "\(name)'s data <small>shared with you</small>", menu: "/people", sourcesLink: false))
        let period = try DataPeriod(ConsoleForm(urlEncoded: request.uri.query ?? ""))
        let range = try view.range(start: period.start, end: period.end, defaultStart: "30d")
        try await household.recordView(of: other, by: person, types: Self.dataPageTypes, start: ISO8601.string(range.start),
                                       end: ISO8601.string(range.end))
        return page
    }

    /// The types the Data page reads.
    static let dataPageTypes = ["stepCount", "sleepAnalysis", "restingHeartRate", "bodyMass", "activeEnergyBurned",
                                "basalEnergyBurned", "dietaryEnergyConsumed"]

    /// `POST /people/share`: share exactly the checked and typed types with another person, or stop (`stop=1`).
    func share(_ form: ConsoleForm) async throws -> Response {
        guard let household else { throw HealthError(.notFound, "this console runs without a household") }
        guard let caregiver = form.value("caregiver") else { throw HealthError(.invalidArgument, "name the person to share with") }
        var types = form.fields.filter { $0.0 == "type" }.map(\.1)
        if let typed = form.value("types") { types.append(typed) }
        let stop = form.value("stop") == "1"
        if !stop, types.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw HealthError(.invalidArgument, "choose at least one type to share, or stop sharing")
        }
        let shared = try await household.share(person, with: caregiver, read: stop ? [] : types)
        logger.info("console: sharing with a person changed", metadata: ["caregiver": "\(shared.caregiver)"])
        return redirect("/people")
    }

    /// `POST /people/add`: the household's owner adds a person.
    func addPerson(_ form: ConsoleForm) async throws -> Response {
        guard let household else { throw HealthError(.notFound, "this console runs without a household") }
        guard person == Household.ownerID else {
            throw HealthError(.notAuthorized, "only the household's owner adds people")
        }
        let added = try household.household.add(name: form.value("name") ?? "", id: form.value("id"))
        logger.info("console: person added", metadata: ["person": "\(added.id)"])
        return redirect("/people")
    }
}
