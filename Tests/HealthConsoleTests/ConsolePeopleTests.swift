import Foundation
import HealthAPI
import HealthModel
@testable import HealthConsole
import HealthService
import Testing

/// The People page: what the household's others share with the console's person is readable through the grant and
/// nothing more (a type not shared looks like no data), each view lands in the sharer's audit log, sharing is set and
/// stopped from the page, and only the household's owner adds people.
@Suite("Console people")
struct ConsolePeopleTests {
    static func form(_ h: ConsoleHarness, _ cookie: String, _ path: String, _ body: String) async throws
        -> ConsoleHarness.Reply
    {
        try await h.send("POST", path, headers: [("Cookie", cookie), ("Origin", h.origin),
                                                 ("Content-Type", "application/x-www-form-urlencoded")],
                         body: Array(body.utf8))
    }

    @Test func aCaregiverReadsWhatWasSharedAndNothingElse() async throws {
        let h = try await ConsoleHarness.start(days: 30, others: ["alex", "sam"])
        defer { h.stop() }
        let (cookie, _) = try await h.signIn()

        // Nothing shared yet: the page says so, and Alex's data page is not found, as for nobody at all.
        let before = try await h.send("GET", "/people", headers: [("Cookie", cookie)])
        #expect(before.status == 200)
        #expect(before.body.contains("id=\"nothing-shared-with-me\""))
        let unshared = try await h.send("GET", "/people/alex/data", headers: [("Cookie", cookie)])
        let nobody = try await h.send("GET", "/people/nobody/data", headers: [("Cookie", cookie)])
        #expect(unshared.status == 404)
        #expect(nobody.status == 404)
        #expect(unshared.body.contains("HEALTH_NOT_FOUND") && nobody.body.contains("HEALTH_NOT_FOUND"))

        // Alex shares steps (not sleep) with the owner.
        try await h.household.share("alex", with: "owner", read: ["stepCount"])
        let page = try await h.send("GET", "/people", headers: [("Cookie", cookie)])
        #expect(page.body.contains("id=\"shared-with-me\""))
        #expect(page.body.contains("href=\"/people/alex/data\""))
        #expect(!page.body.contains("href=\"/people/sam/data\""))

        let data = try await h.send("GET", "/people/alex/data?days=30", headers: [("Cookie", cookie)])
        #expect(data.status == 200)
        // Alex's merged steps, not the owner's own.
        let alex = try await h.household.service(of: "alex")
        let alexSteps = try await alex.summary(SummaryRequest(type: "stepCount", start: "30d", interval: "total",
                                                              statistics: ["sum"])).buckets.first?.sum
        let ownSteps = try await h.service.summary(SummaryRequest(type: "stepCount", start: "30d", interval: "total",
                                                                  statistics: ["sum"])).buckets.first?.sum
        #expect(alexSteps != ownSteps)
        #expect(ConsolePageTests.mergedTotal(data.body) == alexSteps.map { Figure.format($0) })
        // Alex has sleep and weight, but did not share them: they look like no data.
        let alexSleep = try await alex.sleep(SleepRequest(start: "30d"))
        #expect(!alexSleep.nights.isEmpty)
        #expect(data.body.contains("No sleep recorded in this span."))
        #expect(data.body.contains("No weight recorded in this span."))
        #expect(data.body.contains("No energy recorded in this span."))
        #expect(data.body.contains("href=\"/people/alex/data?days=7\""))

        // The view is in Alex's audit log, as the owner reading steps; the owner's own log has nothing of it.
        let events = try await alex.auditEvents(AuditQuery(event: .dataRead, limit: 10))
        let entry = try #require(events.first)
        #expect(entry.client == "person:owner")
        #expect(entry.detail?.principal == "person:owner")
        #expect(entry.detail?.types == ["stepCount"])
        #expect(entry.detail?.start != nil)
        #expect(try await h.service.auditEvents(AuditQuery(event: .dataRead, limit: 10)).isEmpty)

        // Sam shares nothing; Alex stops sharing: both are not found again.
        let sam = try await h.send("GET", "/people/sam/data", headers: [("Cookie", cookie)])
        #expect(sam.status == 404)
        try await h.household.share("alex", with: "owner", read: [])
        let stopped = try await h.send("GET", "/people/alex/data", headers: [("Cookie", cookie)])
        #expect(stopped.status == 404)
    }

    @Test func sharingIsSetAndStoppedFromThePage() async throws {
        let h = try await ConsoleHarness.start(days: 7, others: ["alex"])
        defer { h.stop() }
        let (cookie, csrf) = try await h.signIn()
        let shared = try await Self.form(h, cookie, "/people/share",
                                         "csrf=\(csrf)&caregiver=alex&type=stepCount&type=bodyMass&types=heartRate")
        #expect(shared.status == 303)
        let byOwner = try await h.household.sharedBy("owner")
        #expect(byOwner.map(\.caregiver) == ["alex"])
        #expect(byOwner.first?.grant.types == ["stepCount", "bodyMass", "heartRate"])
        // Alex now reads the owner's steps, never writes them.
        let view = try await h.household.view(of: "owner", for: "alex")
        #expect(try await view.mayRead("stepCount"))
        #expect(!(try await view.mayRead("sleepAnalysis")))
        await #expect(throws: HealthError.self) {
            _ = try await view.logWater(250, unit: "mL")
        }
        // The change is in the owner's audit log as a consent change for person:alex.
        let changes = try await h.service.auditEvents(AuditQuery(event: .consentChange, limit: 5))
        #expect(changes.contains { $0.detail?.principal == "person:alex" })

        let page = try await h.send("GET", "/people", headers: [("Cookie", cookie)])
        #expect(page.body.contains("id=\"shared-by-me\""))
        #expect(page.body.contains("bodyMass, heartRate, stepCount"))

        // An unknown type changes nothing; no type at all is refused.
        let unknown = try await Self.form(h, cookie, "/people/share", "csrf=\(csrf)&caregiver=alex&types=notAType")
        #expect(unknown.status == 400)
        let empty = try await Self.form(h, cookie, "/people/share", "csrf=\(csrf)&caregiver=alex")
        #expect(empty.status == 400)
        #expect(try await h.household.sharedBy("owner").first?.grant.types.count == 3)
        // Without the CSRF token nothing changes.
        let forged = try await Self.form(h, cookie, "/people/share", "caregiver=alex&stop=1")
        #expect(forged.status == 403)
        #expect(try await h.household.sharedBy("owner").count == 1)

        let stop = try await Self.form(h, cookie, "/people/share", "csrf=\(csrf)&caregiver=alex&stop=1")
        #expect(stop.status == 303)
        #expect(try await h.household.sharedBy("owner").isEmpty)
        await #expect(throws: HealthError.self) { _ = try await h.household.view(of: "owner", for: "alex") }
    }

    @Test func onlyTheOwnerAddsPeople() async throws {
        let owner = try await ConsoleHarness.start(days: 3, others: ["alex"])
        defer { owner.stop() }
        let (cookie, csrf) = try await owner.signIn()
        let page = try await owner.send("GET", "/people", headers: [("Cookie", cookie)])
        #expect(page.body.contains("id=\"household\""))
        let added = try await Self.form(owner, cookie, "/people/add", "csrf=\(csrf)&name=Robin+Lee")
        #expect(added.status == 303)
        #expect(try owner.household.household.people().map(\.id) == ["owner", "alex", "robin-lee"])
        let again = try await Self.form(owner, cookie, "/people/add", "csrf=\(csrf)&name=Robin+Lee")
        #expect(again.status == 409)
        let badID = try await Self.form(owner, cookie, "/people/add", "csrf=\(csrf)&name=X&id=Not+An+Id")
        #expect(badID.status == 400)

        let alex = try await ConsoleHarness.start(days: 3, others: ["alex"], person: "alex")
        defer { alex.stop() }
        let (alexCookie, alexCSRF) = try await alex.signIn()
        let alexPage = try await alex.send("GET", "/people", headers: [("Cookie", alexCookie)])
        #expect(alexPage.status == 200)
        #expect(!alexPage.body.contains("id=\"household\""))
        let refused = try await Self.form(alex, alexCookie, "/people/add", "csrf=\(alexCSRF)&name=Mallory")
        #expect(refused.status == 403)
        #expect(try alex.household.household.people().map(\.id) == ["owner", "alex"])
    }
}
