import Foundation
import HeraldAPI
import HeraldCore
import HeraldPostgres
import HeraldPush
import HeraldStorage
import Yams

/// Everything `herald serve` can be told, with its defaults.
///
/// Sources, weakest first: defaults, `Config/herald.yaml` (or `--config`), `HERALD_*` environment
/// variables, then command-line flags. Each YAML key `a.bKey` has the variable `HERALD_A_B_KEY`.
public struct ServerConfiguration: Sendable, Equatable {
    public var listenHost = "127.0.0.1"
    public var listenPort = 8580
    public var dataDirectory = "./data"
    public var logLevel = "info"
    public var logFormat: LogFormat = .text
    public var synchronous: SQLiteStore.Synchronous = .normal
    /// A PostgreSQL database shared by several nodes; nil keeps SQLite under `dataDirectory`.
    public var storageURL: String?
    public var storagePasswordFile: String?
    public var storagePoolSize = 8
    /// PostgreSQL: the deadline of every store call, and the server's statement, lock and
    /// idle-transaction timeouts for this node's sessions.
    public var storageCallTimeoutMilliseconds = 10_000
    /// This node's name in leases, logs and metrics; nil means `hostname:pid`.
    public var nodeID: String?
    public var nodeLeaseMilliseconds = 5_000
    public var nodeSweepMilliseconds = 2_000
    public var batchWindowMilliseconds = 2
    public var lateAfterMilliseconds = 1000
    public var maxBodyBytes = 1_048_576
    public var maxPushBatch = 1000
    public var pushTimeoutMilliseconds = 30_000
    public var pushConnectionsPerApp = 2
    public var pushCredentialsDirectory: String?
    public var pushAllowedEnvironments: [String]?
    public var wakePushesPerHour = 3
    public var heartbeatMilliseconds = 15_000
    public var adminKeys: [String] = []
    public var appKeys: [AppKey] = []
    /// Keys that read `/metrics` only (Prometheus sends one as a bearer token).
    public var metricsKeys: [String] = []
    /// `metrics.public`: `/metrics` needs no key even when keys are configured.
    public var metricsArePublic = false
    public var ratePerSecond: Double = 50
    public var rateBurst = 100
    public var requestTimeoutMilliseconds = 30_000
    public var hookToleranceSeconds = 300
    public var hooksFile: String?
    public var hookRatePerSecond: Double = 50
    public var hookRateBurst = 100
    public var hookMaxTokensPerRequest = 1000
    public var retentionDeliveriesDays = 30
    public var retentionFeedbackDays = 7
    public var shutdownDrainMilliseconds = 10_000
    public var feedbackURLs: [String] = []
    public var feedbackSecret: String?
    public var feedbackEvents: Set<FeedbackType> = [.tokenInvalid, .deliveryFailed]
    public var feedbackMaxAttempts = 8
    public var feedbackOutboxLimit = 10_000
    public var sandboxEnabled = false
    public var sandboxListen = "127.0.0.1:2197"
    public var sandboxAdmin = "127.0.0.1:2198"
    public var sandboxCertsDirectory = "Certs"
    public var sandboxDemoApp: String?

    public init() {}

    /// An API key scoped to one app.
    public struct AppKey: Sendable, Equatable {
        public var app: String
        public var key: String

        public init(app: String, key: String) {
            self.app = app
            self.key = key
        }
    }

    /// This node's name: `node.id`, else `hostname:pid`.
    public var resolvedNodeID: String {
        nodeID ?? "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// True for addresses that only this machine can reach.
    public var listensOnLoopbackOnly: Bool {
        listenHost == "localhost" || listenHost == "::1" || listenHost.hasPrefix("127.")
    }

    /// The keys a configuration may set: YAML path, then how to apply its text value.
    static let keys: [(path: String, apply: @Sendable (inout ServerConfiguration, String) throws(ConfigurationError) -> Void)] = [
        ("listen", { config, value throws(ConfigurationError) in
            (config.listenHost, config.listenPort) = try parseListen(value, key: "listen")
        }),
        ("dataDir", { config, value in config.dataDirectory = value }),
        ("logLevel", { config, value throws(ConfigurationError) in
            guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(value) else {
                throw ConfigurationError(key: "logLevel", message: "'\(value)' is not a log level")
            }
            config.logLevel = value
        }),
        ("logFormat", { config, value throws(ConfigurationError) in
            guard let format = LogFormat(rawValue: value) else {
                throw ConfigurationError(key: "logFormat", message: "'\(value)' is not text or json")
            }
            config.logFormat = format
        }),
        ("storage.synchronous", { config, value throws(ConfigurationError) in
            guard let mode = SQLiteStore.Synchronous(rawValue: value.uppercased()) else {
                throw ConfigurationError(key: "storage.synchronous", message: "must be normal or full")
            }
            config.synchronous = mode
        }),
        ("storage.url", { config, value throws(ConfigurationError) in
            do throws(HeraldError) {
                _ = try PostgresLocation(url: value)
            } catch {
                throw ConfigurationError(key: "storage.url", message: error.message)
            }
            config.storageURL = value
        }),
        ("storage.passwordFile", { config, value in config.storagePasswordFile = value }),
        ("storage.poolSize", { config, value throws(ConfigurationError) in
            config.storagePoolSize = try parseInteger(value, key: "storage.poolSize", range: 2...256)
        }),
        ("storage.callTimeoutMs", { config, value throws(ConfigurationError) in
            config.storageCallTimeoutMilliseconds = try parseInteger(value, key: "storage.callTimeoutMs", range: 500...600_000)
        }),
        ("node.id", { config, value throws(ConfigurationError) in
            guard !value.isEmpty, value.count <= 200, !value.contains("\n") else {
                throw ConfigurationError(key: "node.id", message: "must be 1 to 200 characters on one line")
            }
            config.nodeID = value
        }),
        ("node.leaseMs", { config, value throws(ConfigurationError) in
            config.nodeLeaseMilliseconds = try parseInteger(value, key: "node.leaseMs", range: 300...600_000)
        }),
        ("node.sweepMs", { config, value throws(ConfigurationError) in
            config.nodeSweepMilliseconds = try parseInteger(value, key: "node.sweepMs", range: 100...600_000)
        }),
        ("scheduler.batchWindowMs", { config, value throws(ConfigurationError) in
            config.batchWindowMilliseconds = try parseInteger(value, key: "scheduler.batchWindowMs", range: 0...1000)
        }),
        ("scheduler.lateAfterMs", { config, value throws(ConfigurationError) in
            config.lateAfterMilliseconds = try parseInteger(value, key: "scheduler.lateAfterMs", range: 0...86_400_000)
        }),
        ("api.maxBodyBytes", { config, value throws(ConfigurationError) in
            config.maxBodyBytes = try parseInteger(value, key: "api.maxBodyBytes", range: 1024...(64 << 20))
        }),
        ("api.maxPushBatch", { config, value throws(ConfigurationError) in
            config.maxPushBatch = try parseInteger(value, key: "api.maxPushBatch", range: 1...100_000)
        }),
        ("push.timeoutMs", { config, value throws(ConfigurationError) in
            config.pushTimeoutMilliseconds = try parseInteger(value, key: "push.timeoutMs", range: 100...600_000)
        }),
        ("push.connectionsPerApp", { config, value throws(ConfigurationError) in
            config.pushConnectionsPerApp = try parseInteger(value, key: "push.connectionsPerApp", range: 1...64)
        }),
        ("push.credentialsDir", { config, value in config.pushCredentialsDirectory = value }),
        ("push.allowedEnvironments", { config, value throws(ConfigurationError) in
            let entries = list(value)
            for entry in entries where PushCredentialPolicy.normalised(entry) == nil {
                throw ConfigurationError(key: "push.allowedEnvironments", message: "'\(entry)' is not https://host:port or host:port")
            }
            config.pushAllowedEnvironments = entries
        }),
        ("coalescer.wakePushesPerHour", { config, value throws(ConfigurationError) in
            config.wakePushesPerHour = try parseInteger(value, key: "coalescer.wakePushesPerHour", range: 0...60)
        }),
        ("coalescer.heartbeatMs", { config, value throws(ConfigurationError) in
            config.heartbeatMilliseconds = try parseInteger(value, key: "coalescer.heartbeatMs", range: 10...3_600_000)
        }),
        ("auth.adminKeys", { config, value in
            config.adminKeys += list(value)
        }),
        ("auth.metricsKeys", { config, value in
            config.metricsKeys += list(value)
        }),
        ("metrics.public", { config, value throws(ConfigurationError) in
            config.metricsArePublic = try parseBoolean(value, key: "metrics.public")
        }),
        ("auth.appKeys", { config, value throws(ConfigurationError) in
            for entry in list(value) {
                guard let equals = entry.firstIndex(of: "="), Identifier.isValid(String(entry[..<equals])),
                      entry.index(after: equals) < entry.endIndex
                else { throw ConfigurationError(key: "auth.appKeys", message: "entries are APP=KEY, comma-separated") }
                config.appKeys.append(AppKey(app: String(entry[..<equals]), key: String(entry[entry.index(after: equals)...])))
            }
        }),
        ("auth.keysFile", { config, value throws(ConfigurationError) in
            // One key per line: `admin KEY` or `app APP KEY`; `#` starts a comment.
            guard let text = try? String(contentsOfFile: value, encoding: .utf8) else {
                throw ConfigurationError(key: "auth.keysFile", message: "cannot read \(value)")
            }
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                switch words.first {
                case nil, "#"?: continue
                case "admin"? where words.count == 2: config.adminKeys.append(words[1])
                case "metrics"? where words.count == 2: config.metricsKeys.append(words[1])
                case "app"? where words.count == 3 && Identifier.isValid(words[1]):
                    config.appKeys.append(AppKey(app: words[1], key: words[2]))
                default:
                    if words.first?.hasPrefix("#") == true { continue }
                    throw ConfigurationError(key: "auth.keysFile", message: "lines are `admin KEY`, `app APP KEY` or `metrics KEY`")
                }
            }
        }),
        ("limits.ratePerSecond", { config, value throws(ConfigurationError) in
            config.ratePerSecond = try parseRate(value, key: "limits.ratePerSecond")
        }),
        ("hooks.ratePerSecond", { config, value throws(ConfigurationError) in
            config.hookRatePerSecond = try parseRate(value, key: "hooks.ratePerSecond")
        }),
        ("hooks.rateBurst", { config, value throws(ConfigurationError) in
            config.hookRateBurst = try parseInteger(value, key: "hooks.rateBurst", range: 1...1_000_000)
        }),
        ("hooks.maxTokensPerRequest", { config, value throws(ConfigurationError) in
            config.hookMaxTokensPerRequest = try parseInteger(value, key: "hooks.maxTokensPerRequest", range: 1...100_000)
        }),
        ("retention.deliveriesDays", { config, value throws(ConfigurationError) in
            config.retentionDeliveriesDays = try parseInteger(value, key: "retention.deliveriesDays", range: 1...3650)
        }),
        ("retention.feedbackDays", { config, value throws(ConfigurationError) in
            config.retentionFeedbackDays = try parseInteger(value, key: "retention.feedbackDays", range: 1...3650)
        }),
        ("shutdown.drainMs", { config, value throws(ConfigurationError) in
            config.shutdownDrainMilliseconds = try parseInteger(value, key: "shutdown.drainMs", range: 0...600_000)
        }),
        ("limits.rateBurst", { config, value throws(ConfigurationError) in
            config.rateBurst = try parseInteger(value, key: "limits.rateBurst", range: 1...1_000_000)
        }),
        ("limits.requestTimeoutMs", { config, value throws(ConfigurationError) in
            config.requestTimeoutMilliseconds = try parseInteger(value, key: "limits.requestTimeoutMs", range: 10...3_600_000)
        }),
        ("hooks.toleranceSeconds", { config, value throws(ConfigurationError) in
            config.hookToleranceSeconds = try parseInteger(value, key: "hooks.toleranceSeconds", range: 1...86_400)
        }),
        ("hooks.file", { config, value in config.hooksFile = value }),
        ("feedback.urls", { config, value throws(ConfigurationError) in
            for url in list(value) {
                guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https", parsed.host != nil else {
                    throw ConfigurationError(key: "feedback.urls", message: "'\(url)' is not an http(s) URL")
                }
                config.feedbackURLs.append(url)
            }
        }),
        ("feedback.secret", { config, value in config.feedbackSecret = value }),
        ("feedback.secretFile", { config, value throws(ConfigurationError) in
            guard let text = try? String(contentsOfFile: value, encoding: .utf8) else {
                throw ConfigurationError(key: "feedback.secretFile", message: "cannot read \(value)")
            }
            config.feedbackSecret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }),
        ("feedback.events", { config, value throws(ConfigurationError) in
            let types = list(value).map(FeedbackType.init(rawValue:))
            guard types.allSatisfy({ $0 != nil }) else {
                let known = FeedbackType.allCases.map(\.rawValue).sorted().joined(separator: ", ")
                throw ConfigurationError(key: "feedback.events", message: "types are \(known)")
            }
            config.feedbackEvents = Set(types.compactMap { $0 })
        }),
        ("feedback.maxAttempts", { config, value throws(ConfigurationError) in
            config.feedbackMaxAttempts = try parseInteger(value, key: "feedback.maxAttempts", range: 1...100)
        }),
        ("feedback.outboxLimit", { config, value throws(ConfigurationError) in
            config.feedbackOutboxLimit = try parseInteger(value, key: "feedback.outboxLimit", range: 1...10_000_000)
        }),
        ("sandbox.enabled", { config, value throws(ConfigurationError) in
            config.sandboxEnabled = try parseBoolean(value, key: "sandbox.enabled")
        }),
        ("sandbox.listen", { config, value throws(ConfigurationError) in
            _ = try parseListen(value, key: "sandbox.listen")
            config.sandboxListen = value
        }),
        ("sandbox.admin", { config, value throws(ConfigurationError) in
            _ = try parseListen(value, key: "sandbox.admin")
            config.sandboxAdmin = value
        }),
        ("sandbox.certsDir", { config, value in config.sandboxCertsDirectory = value }),
        ("sandbox.demoApp", { config, value throws(ConfigurationError) in
            guard Identifier.isValid(value) else {
                throw ConfigurationError(key: "sandbox.demoApp", message: "'\(value)' is not a bundle id")
            }
            config.sandboxDemoApp = value
        }),
    ]

    /// The environment variable that overrides a YAML key: `scheduler.batchWindowMs` →
    /// `HERALD_SCHEDULER_BATCH_WINDOW_MS`.
    public static func environmentName(for path: String) -> String {
        var name = "HERALD_"
        for character in path {
            if character == "." {
                name += "_"
            } else if character.isUppercase {
                name += "_" + String(character)
            } else {
                name += character.uppercased()
            }
        }
        return name
    }

    /// Builds a configuration from a YAML file (if any) and the environment.
    public static func load(file: String?, environment: [String: String]) throws(ConfigurationError) -> ServerConfiguration {
        var config = ServerConfiguration()
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConfigurationError(key: "--config", message: "cannot read \(file): \(error.localizedDescription)")
            }
            let values = try flatten(yaml: text)
            for (path, value) in values.sorted(by: { $0.key < $1.key }) {
                guard let key = keys.first(where: { $0.path == path }) else {
                    throw ConfigurationError(key: path, message: "unknown key in \(file)")
                }
                try key.apply(&config, value)
            }
        }
        for key in keys {
            if let value = environment[environmentName(for: key.path)] {
                try key.apply(&config, value)
            }
        }
        return config
    }

    /// Applies one `path = value` override, as a command-line flag does.
    public mutating func set(_ path: String, to value: String) throws(ConfigurationError) {
        guard let key = Self.keys.first(where: { $0.path == path }) else {
            throw ConfigurationError(key: path, message: "unknown key")
        }
        try key.apply(&self, value)
    }

    /// A comma-separated (or YAML list) value, trimmed, empty entries dropped.
    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func flatten(yaml text: String) throws(ConfigurationError) -> [String: String] {
        let root: Any?
        do {
            root = try Yams.load(yaml: text)
        } catch {
            throw ConfigurationError(key: "yaml", message: "\(error)")
        }
        var values: [String: String] = [:]
        func walk(_ node: Any?, prefix: String) {
            if let mapping = node as? [String: Any] {
                for (key, child) in mapping { walk(child, prefix: prefix.isEmpty ? key : "\(prefix).\(key)") }
            } else if let sequence = node as? [Any] {
                values[prefix] = sequence.map { "\($0)" }.joined(separator: ",")
            } else if let node, !prefix.isEmpty, !(node is NSNull) {
                values[prefix] = "\(node)"
            }
        }
        walk(root, prefix: "")
        return values
    }

    /// Splits `HOST:PORT` (brackets allowed around an IPv6 host).
    public static func parseListenAddress(_ value: String) throws(ConfigurationError) -> (host: String, port: Int) {
        try parseListen(value, key: "listen")
    }

    static func parseListen(_ value: String, key: String) throws(ConfigurationError) -> (String, Int) {
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
              (0...65535).contains(port)
        else {
            throw ConfigurationError(key: key, message: "'\(value)' is not HOST:PORT")
        }
        var host = String(value[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    /// Requests a second; fractions allowed: 0.5 is one request every two seconds on average.
    static func parseBoolean(_ value: String, key: String) throws(ConfigurationError) -> Bool {
        guard let flag = Bool(value.lowercased()) else { throw ConfigurationError(key: key, message: "must be true or false") }
        return flag
    }

    static func parseRate(_ value: String, key: String) throws(ConfigurationError) -> Double {
        guard let rate = Double(value), rate > 0, rate <= 1_000_000 else {
            throw ConfigurationError(key: key, message: "'\(value)' must be a number above 0")
        }
        return rate
    }

    static func parseInteger(_ value: String, key: String, range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw ConfigurationError(key: key, message: "'\(value)' must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}

/// A configuration value that cannot be used, named by its key.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public var key: String
    public var message: String

    public var description: String { "configuration \(key): \(message)" }
}

extension ServerConfiguration {
    /// What the API's routes and middleware read of this configuration.
    public var apiSettings: APISettings {
        var settings = APISettings()
        settings.adminKeys = adminKeys
        settings.appKeys = appKeys.map { ($0.app, $0.key) }
        settings.metricsKeys = metricsKeys
        settings.metricsArePublic = metricsArePublic
        settings.ratePerSecond = ratePerSecond
        settings.rateBurst = rateBurst
        settings.hookRatePerSecond = hookRatePerSecond
        settings.hookRateBurst = hookRateBurst
        settings.hookToleranceSeconds = hookToleranceSeconds
        settings.hookMaxTokensPerRequest = hookMaxTokensPerRequest
        settings.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        settings.maxBodyBytes = maxBodyBytes
        settings.maxPushBatch = maxPushBatch
        settings.wakePushesPerHour = wakePushesPerHour
        settings.heartbeatMilliseconds = heartbeatMilliseconds
        return settings
    }
}
