import Foundation
import HeraldAPI
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Wrong methods")
struct MethodNotAllowedTests {
    @Test("A method a path does not have is 405 methodNotAllowed with Allow; a path nothing has is 404 routeNotFound")
    func wrongMethodIs405() async throws {
        try await withHerald { herald in
            let patch = try await herald.api.send(.patch, "/v1/apps/com.example.alarm")
            #expect(patch.status == .methodNotAllowed)
            #expect(patch.json["error"]["reason"].string == "methodNotAllowed")
            #expect(patch.headers[.allow] == "DELETE, GET, PUT")
            let trace = try await herald.api.send(.delete, "/healthz")
            #expect(trace.status == .methodNotAllowed)
            #expect(trace.headers[.allow] == "GET")
            let nowhere = try await herald.api.send(.get, "/v1/apps/com.example.alarm/nothing")
            #expect(nowhere.status == .notFound)
            #expect(nowhere.json["error"]["reason"].string == "routeNotFound")
        }
    }

    @Test("HEAD is not GET without a body: the event stream's GET connects the device, so HEAD is 405 there as everywhere")
    func headIsNotAllowed() async throws {
        try await withHerald { herald in
            let head = try await herald.api.send(.head, "/v1/apps/com.example.alarm/devices/iphone-1/events/stream")
            #expect(head.status == .methodNotAllowed)
            #expect(head.headers[.allow] == "GET")
        }
    }
}
