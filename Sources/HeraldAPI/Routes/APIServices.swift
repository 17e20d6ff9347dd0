import Foundation
import HeraldCore
import HeraldDirectory
import HeraldScheduler
import Hummingbird

/// What every route needs: the use cases, the clock and the body reader.
struct APIServices: Sendable {
    /// Apps, devices, channels' audiences and Live Activity tokens.
    var directory: Directory
    /// The schedule use case, arming the engine.
    var scheduling: Scheduling
    /// A device's pending notifications and deliveries, read and cancelled.
    var pending: PendingNotifications
    var engine: SchedulerEngine
    var clock: any SchedulerClock
    var body: JSONBody
}

extension Parameters {
    /// A path parameter, percent-decoded: what routes and the access check both compare, so
    /// `a%2Eapp` and `a.app` are the same app everywhere.
    func decoded(_ name: String) throws -> String {
        let raw = try require(name)
        guard let value = raw.removingPercentEncoding else {
            throw HeraldError.badRequest(.invalidPath, "path parameter \(name) is not valid percent-encoding")
        }
        return value
    }

    /// A path identifier, decoded and checked against the identifier rules.
    ///
    /// Never inlined: Swift 6.3.1's release build crashes (LLVM CoroSplit, signal 11) when this
    /// typed-throws check is inlined into some route closures (`GET /v1/apps/{app}`).
    @inline(never)
    func identifier(_ name: String) throws -> String {
        let value = try decoded(name)
        try Identifier.validate(value, field: name)
        return value
    }
}

extension Request {
    /// A header by name, case-insensitively; for names `HTTPField.Name` has no constant for.
    func header(_ name: String) -> String? {
        headers.first { $0.name.canonicalName == name.lowercased() }?.value
    }
}
