import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2

/// APNs' channel management API (iOS 18 broadcast push): creates, reads, lists and deletes an
/// app's broadcast channels on the management host (`api-manage-broadcast…`, ports 2195 and
/// 2196), signed with the app's provider token. Token auth only, as APNs requires.
///
/// ```swift
/// let id = try await manager.create(messageStoragePolicy: 1)   // the apns-channel-id
/// try await manager.delete(id)
/// ```
public final class APNsChannelManager: Sendable {
    private let bundleID: String
    private let pool: PushConnectionPool
    private let authority: String
    private let providerTokens: ProviderTokenSource
    /// How long one management request may take, connection included.
    private let timeout: Duration = .seconds(10)

    /// What APNs answered to a management request it refused, or why no answer came.
    public enum Failure: Error, Sendable, Equatable {
        /// APNs refused it: its status and reason (`ChannelNotRegistered`, `InvalidPolicy`…).
        case refused(status: Int, reason: String)
        /// No answer: a connection or TLS failure, or the deadline.
        case unreachable(String)
    }

    init(bundleID: String, endpoint: (host: String, port: Int), tls: HTTP2ClientTLS, loops: HTTP2EventLoops,
         providerTokens: ProviderTokenSource) {
        self.bundleID = bundleID
        self.providerTokens = providerTokens
        authority = endpoint.port == 443 ? endpoint.host : "\(endpoint.host):\(endpoint.port)"
        pool = PushConnectionPool(host: endpoint.host, port: endpoint.port, tls: tls, loops: loops, size: 1)
    }

    /// Creates a channel for Live Activity broadcasts.
    ///
    /// - Parameter messageStoragePolicy: 0, no storage; 1, APNs keeps the most recent broadcast.
    /// - Returns: the channel's id (`apns-channel-id`), base64.
    /// - Throws: ``Failure``.
    public func create(messageStoragePolicy: Int) async throws(Failure) -> String {
        let body: JSONValue = .object(["message-storage-policy": .number(Double(messageStoragePolicy)),
                                       "push-type": .string("LiveActivity")])
        let response = try await send("POST", "/1/apps/\(bundleID)/channels", body: body, expecting: 201)
        guard let id = response.header("apns-channel-id"), !id.isEmpty else {
            throw .unreachable("APNs created a channel but sent no apns-channel-id")
        }
        return id
    }

    /// The channel's message storage policy; nil when APNs does not know the channel.
    ///
    /// - Throws: ``Failure`` for anything but a known or an unknown channel.
    public func storagePolicy(of channelID: String) async throws(Failure) -> Int? {
        do {
            let response = try await send("GET", "/1/apps/\(bundleID)/channels", channelID: channelID, expecting: 200)
            guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)),
                  case .number(let policy)? = fields["message-storage-policy"] else {
                throw Failure.unreachable("APNs answered a channel read without message-storage-policy")
            }
            return Int(policy)
        } catch let failure as Failure {
            if case .refused(404, _) = failure { return nil }
            throw failure
        } catch {
            throw .unreachable("\(error)")
        }
    }

    /// Deletes a channel. Returns false when APNs did not know it (already gone).
    ///
    /// - Throws: ``Failure``.
    public func delete(_ channelID: String) async throws(Failure) -> Bool {
        do {
            _ = try await send("DELETE", "/1/apps/\(bundleID)/channels", channelID: channelID, expecting: 204)
            return true
        } catch {
            if case .refused(404, _) = error { return false }
            throw error
        }
    }

    /// Every channel id APNs holds for the app.
    ///
    /// - Throws: ``Failure``.
    public func list() async throws(Failure) -> [String] {
        let response = try await send("GET", "/1/apps/\(bundleID)/all-channels", expecting: 200)
        guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)),
              case .array(let ids)? = fields["channels"] else { return [] }
        return ids.compactMap { if case .string(let id) = $0 { return id } else { return nil } }
    }

    private func send(_ method: String, _ path: String, channelID: String? = nil, body: JSONValue? = nil,
                      expecting status: Int) async throws(Failure) -> HTTP2Response {
        let token: ProviderToken
        do {
            token = try providerTokens.token(now: Date())
        } catch {
            throw .unreachable("cannot sign the provider token: \(error)")
        }
        var headers: [HTTP2Header] = [("authorization", "bearer \(token.jwt)"), ("apns-request-id", APNsID.random())]
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        var bytes: [UInt8] = []
        if let body {
            headers.append(("content-type", "application/json"))
            bytes = (try? JSONEncoder().encode(body)).map { [UInt8]($0) } ?? []
        }
        let request = HTTP2Request(method: method, path: path, authority: authority, headers: headers, body: bytes)
        guard let answer = await pool.send([request], limit: timeout).first else { throw .unreachable("no answer") }
        switch answer.result {
        case .failure(let error):
            throw .unreachable("\(error)")
        case .success(let response) where response.status == status:
            return response
        case .success(let response):
            let reason = (try? JSONDecoder().decode([String: String].self, from: Data(response.body)))?["reason"]
            throw .refused(status: response.status, reason: reason ?? "HTTP\(response.status)")
        }
    }

    func close() async { await pool.closeAll() }
}
