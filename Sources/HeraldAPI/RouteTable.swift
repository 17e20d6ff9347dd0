import Hummingbird
import Synchronization

/// The methods each route template answers: tells a request with the wrong method (405, with
/// `Allow`) from one for a path that does not exist (404), which the router alone does not.
final class RouteTable: Sendable {
    private struct Route {
        var segments: [String]
        var methods: Set<String>
    }

    private let routes = Mutex<[Route]>([])

    /// Takes the router's routes; called once every route is registered.
    func load(_ descriptions: [(template: String, method: String)]) {
        var byTemplate: [String: Set<String>] = [:]
        for (template, method) in descriptions { byTemplate[template, default: []].insert(method) }
        routes.withLock { routes in
            routes = byTemplate.map { Route(segments: Self.segments($0.key), methods: $0.value) }
        }
    }

    /// The methods a route matching `path` answers, sorted; nil when no route has that shape.
    func allowedMethods(for path: String) -> [String]? {
        let wanted = Self.segments(path)
        let methods = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == wanted.count && zip(route.segments, wanted).allSatisfy { template, segment in
                    template == segment || ((template.hasPrefix("{") || template.hasPrefix(":")) && !segment.isEmpty)
                }
            }.reduce(into: Set<String>()) { $0.formUnion($1.methods) }
        }
        return methods.isEmpty ? nil : methods.sorted()
    }

    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}
