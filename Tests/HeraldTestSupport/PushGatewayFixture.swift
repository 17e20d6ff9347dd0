import HeraldPush

/// A push gateway for the test, shut down after `body` whatever happens: shared by the push
/// suites and the delivery suites, which push through the same gateway.
public func withPushGateway<T>(ledger: any TokenLedger = TransientTokenLedger(), timeout: Duration = .seconds(10),
                               concurrency: Int = 2000, _ body: (PushGateway) async throws -> T) async throws -> T {
    let gateway = PushGateway(ledger: ledger, configuration: .init(timeout: timeout, concurrency: concurrency),
                              logger: quietLogger("herald.push.test"))
    do {
        let result = try await body(gateway)
        await gateway.shutdown()
        return result
    } catch {
        await gateway.shutdown()
        throw error
    }
}
