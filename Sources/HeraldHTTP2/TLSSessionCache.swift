import COpenSSL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The latest resumable TLS session per server, so a client's next connection to that server can
/// resume instead of running a full handshake (one round trip and no certificate chain to send
/// and verify).
///
/// One cache belongs to one client `TLSContext`, so a session is only ever offered by
/// connections with the same trust roots, verification and identity as the one that earned it.
/// A session is keyed by the server's address ("host:port") and the server name the connection
/// sent in SNI and verified; it is never offered to another name, because a resumed handshake
/// does not present the certificate again.
///
/// Ownership: every stored `SSL_SESSION` holds one reference that this cache owns and releases
/// with `SSL_SESSION_free` when the entry is replaced, taken or evicted, and in `deinit`.
final class TLSSessionCache: Sendable {
    /// A cache key: where the connection went and which name it verified.
    struct Key: Hashable, Sendable, CustomStringConvertible {
        let address: String
        let serverName: String

        var description: String { "\(serverName)@\(address)" }
    }

    /// What the cache did, for tests and diagnostics.
    struct Statistics: Sendable, Equatable {
        /// Sessions received from servers and kept.
        var stored = 0
        /// Connections that offered a cached session in their ClientHello.
        var offered = 0
        /// Client handshakes that resumed a session.
        var resumed = 0
        /// Client handshakes that ran in full (nothing offered, or the server declined).
        var full = 0
    }

    /// A session pointer crossing the lock; the cache's own reference is what it stands for.
    private struct Entry: @unchecked Sendable {
        let session: OpaquePointer
    }

    private struct State: ~Copyable {
        var entries: [Key: Entry] = [:]
        var statistics = Statistics()
    }

    /// Servers remembered at most; beyond it an arbitrary entry makes room.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
    }

    deinit {
        state.withLock { state in
            for entry in state.entries.values { SSL_SESSION_free(entry.session) }
            state.entries.removeAll()
        }
    }

    /// Keeps `session` for `key`, taking over the caller's reference (freed here if not kept).
    func store(_ session: OpaquePointer, for key: Key) {
        guard SSL_SESSION_is_resumable(session) == 1 else {
            SSL_SESSION_free(session)
            return
        }
        let replaced: Entry? = state.withLock { state in
            var evicted = state.entries.updateValue(Entry(session: session), forKey: key)
            if evicted == nil, state.entries.count > capacity,
               let victim = state.entries.keys.first(where: { $0 != key }) {
                evicted = state.entries.removeValue(forKey: victim)
            }
            state.statistics.stored += 1
            return evicted
        }
        if let replaced { SSL_SESSION_free(replaced.session) }
    }

    /// A new reference to the session to offer to `key`'s server, or nil; the caller frees it
    /// (SSL_set_session takes its own reference).
    ///
    /// TLS 1.3 tickets are used once (RFC 8446 section C.4: reuse lets observers link
    /// connections), so those leave the cache here; the resumed connection receives a fresh
    /// ticket. A TLS 1.2 session stays until the server replaces it.
    func sessionToOffer(for key: Key) -> OpaquePointer? {
        let now = time(nil)
        var expired: Entry?
        let offered: Entry? = state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            let session = entry.session
            if now >= SSL_SESSION_get_time(session) + SSL_SESSION_get_timeout(session)
                || SSL_SESSION_is_resumable(session) != 1 {
                expired = state.entries.removeValue(forKey: key)
                return nil
            }
            if SSL_SESSION_get_protocol_version(session) >= TLS1_3_VERSION {
                state.entries.removeValue(forKey: key)  // its reference moves to the caller
            } else {
                SSL_SESSION_up_ref(session)
            }
            state.statistics.offered += 1
            return entry
        }
        if let expired { SSL_SESSION_free(expired.session) }
        return offered?.session
    }

    /// Counts one finished client handshake.
    func recordHandshake(resumed: Bool) {
        state.withLock { state in
            if resumed { state.statistics.resumed += 1 } else { state.statistics.full += 1 }
        }
    }

    /// Whether a session for `key` is waiting to be offered.
    func hasSession(for key: Key) -> Bool {
        state.withLock { $0.entries[key] != nil }
    }

    var statistics: Statistics { state.withLock { $0.statistics } }
}
