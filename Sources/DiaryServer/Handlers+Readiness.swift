import DiaryAPI
import DiaryStore

extension Handlers {
    /// How long the readiness answer waits for the write lock before it says "not ready": well
    /// under a load balancer's usual check timeout (2 to 5 s), and far past a group commit's fsync.
    static let readinessBound = Duration.seconds(1)

    /// `GET /api/ready`: 200 when a write could begin now, 503 (logged with its cause) when not.
    /// A store that cannot tell (a test's wrapper) is taken as not ready: a load balancer must
    /// never be told "ready" on a guess.
    func readiness() throws(Problem) -> Reply<HealthStatus> {
        guard let operated = store as? any OperatedStore else {
            throw Problem(title: "Service Unavailable", status: 503, detail: "This store cannot say whether it can be written.")
        }
        do {
            try operated.checkWritable(within: Self.readinessBound)
        } catch {
            log("not ready: \(error)")
            throw Problem(title: "Service Unavailable", status: 503, detail: "The database cannot be written now.")
        }
        return Reply(HealthStatus(status: "ready"))
    }
}
