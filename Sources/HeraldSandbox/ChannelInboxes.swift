import Foundation
import HeraldCore
import Synchronization

/// One message as an Android device (FCM) or a browser (Web Push) would have received it.
public struct ChannelEntry: Codable, Sendable, Equatable {
    /// The FCM registration token, or the Web Push subscription id.
    public var address: String
    public var receivedAt: Date
    /// FCM: the `message` object as sent. Web Push: the decrypted payload (JSON, or a string).
    public var message: JSONValue
    /// Request headers (names lowercased), without `authorization`.
    public var headers: [String: String]
    /// The id the sandbox answered with: FCM's message name, Web Push's `Location`.
    public var id: String
}

/// What each FCM token and Web Push subscription received, bounded per address like the APNs
/// inboxes, and how often each was refused.
final class ChannelInboxes: Sendable {
    private let entries = Mutex<[String: [ChannelEntry]]>([:])
    private let refused = Mutex<[String: Int]>([:])
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func append(_ entry: ChannelEntry) {
        entries.withLock { entries in
            entries[entry.address, default: []].append(entry)
            if let count = entries[entry.address]?.count, count > capacity {
                entries[entry.address]?.removeFirst(count - capacity)
            }
        }
    }

    func inbox(_ address: String) -> [ChannelEntry] { entries.withLock { $0[address] ?? [] } }

    func counts() -> [String: Int] { entries.withLock { $0.mapValues(\.count) } }

    func noteRefusal(_ address: String) { refused.withLock { $0[address, default: 0] += 1 } }

    func refusals(_ address: String) -> Int { refused.withLock { $0[address, default: 0] } }

    func clear() {
        entries.withLock { $0.removeAll() }
        refused.withLock { $0.removeAll() }
    }
}

/// Faults chosen by an address's prefix, as the APNs sandbox chooses them by token: an FCM token
/// or a subscription id that starts with a fault's name gets that answer. `once-` variants
/// (`quota`, `unavailable`) answer so only the first time, then accept, to test retries.
enum ChannelFault: String, CaseIterable {
    case unregistered, invalid, mismatch, quota, unavailable, gone, notfound, toolarge

    init?(address: String) {
        guard let fault = Self.allCases.first(where: { address.hasPrefix($0.rawValue) }) else { return nil }
        self = fault
    }

    /// Answered once per address, then the address is accepted.
    var isPassing: Bool { self == .quota || self == .unavailable }
}

/// Addresses a passing fault already answered.
final class PassedFaults: Sendable {
    private let passed = Mutex<Set<String>>([])

    /// True the first time for `address`.
    func firstTime(_ address: String) -> Bool { passed.withLock { $0.insert(address).inserted } }
}
