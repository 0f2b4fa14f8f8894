import DiaryAPI
import DiaryServer
import HTTPCore
import Testing

/// `GET /api/ready`: 200 while a write could begin, 503 problem+json when not, on either engine.
@Suite struct ReadinessTests {
    @Test func readyWhileTheDatabaseCanBeWritten() throws {
        let t = try TestApplication()
        let response = t.request("GET", "/api/ready")
        #expect(response.status == 200)
        #expect(try response.decoded(HealthStatus.self) == HealthStatus(status: "ready"))
        #expect(t.request("HEAD", "/api/ready").status == 200)
    }

    @Test func notReadyOnceTheStoreIsClosed() throws {
        let t = try TestApplication()
        try t.closeStore()
        let response = t.request("GET", "/api/ready")
        #expect(response.status == 503)
        #expect(response.problem?.status == 503)
        #expect(response.headers["Retry-After"] == "1")
        // The health answer only says the process answers: it stays 200.
        #expect(t.request("GET", "/api/health").status == 200)
    }

    /// A store that cannot say whether it can be written (a wrapper) is never called ready.
    @Test func aStoreThatCannotTellIsNotReady() throws {
        let t = try TestApplication()
        let app = DiaryApplication(store: CountingStore(t.store))
        let response = app.respond(to: Request(method: .get, target: "/api/ready"))
        #expect(response.status == 503)
        #expect(response.problem?.detail == "This store cannot say whether it can be written.")
    }

    /// Readiness is never kept by the response cache: a kept 200 would hide a database gone read-only.
    @Test func readinessIsNotCached() throws {
        let t = try TestApplication()
        #expect(t.request("GET", "/api/ready").status == 200)
        try t.closeStore()
        #expect(t.request("GET", "/api/ready").status == 503)
    }
}
