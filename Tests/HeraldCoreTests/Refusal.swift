import HeraldCore

/// The stable reason of the refusal `body` throws, or nil when it does not throw: what the rules'
/// tests compare against the reasons DESIGN.md and the API name.
func refusal(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as HeraldError {
        return error.reason.rawValue
    } catch {
        return "not a HeraldError: \(error)"
    }
}
