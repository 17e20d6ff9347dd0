import Foundation
import HeraldCore
import HeraldStorage
import Hummingbird

/// Every error leaves the server as `{"error": {"reason", "message"}}` with a fitting status.
struct APIError: HTTPResponseError {
    var status: HTTPResponse.Status
    var reason: Reason
    var message: String
    /// Extra response headers (`Allow` on a 405).
    var headers: HTTPFields = [:]

    init(status: HTTPResponse.Status, reason: Reason, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.reason = reason
        self.message = message
        self.headers = headers
    }

    init(_ error: HeraldError) {
        let status: HTTPResponse.Status
        switch error.kind {
        case .badRequest: status = .badRequest
        case .notFound: status = .notFound
        case .invalid: status = .unprocessableContent
        case .conflict: status = .conflict
        case .tooLarge: status = .contentTooLarge
        case .forbidden: status = .forbidden
        }
        self.init(status: status, reason: error.reason, message: error.message)
    }

    /// The JSON shape of every error response.
    struct Body: Codable {
        struct Detail: Codable {
            var reason: String
            var message: String
        }
        var error: Detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(Body(error: .init(reason: reason.rawValue, message: message)))
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Turns whatever a route throws into an ``APIError``, so that no error leaves as plain text and
/// bad input never surfaces as a 500.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Tells a wrong method on an existing path (405) from a missing path (404).
    let routes: RouteTable
    /// Told when a write meets a full disk, and when a later write succeeds: for `/readyz`.
    let fullness: StorageFullness

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            if request.method != .get, request.method != .head, (200..<300).contains(response.status.code) { fullness.wrote() }
            return response
        } catch let error as APIError {
            throw error
        } catch let error as HeraldError {
            throw APIError(error)
        } catch let error as DecodingError {
            throw APIError(JSONBody.describe(error))
        } catch let fault as StoreFault where fault.kind == .storageFull {
            // Nothing was written: the transaction rolled back. The same request succeeds once
            // an operator frees space; until then the node says so on /readyz.
            let call = "\(request.method) \(request.uri.path) (\(fault.statement))"
            context.logger.error("request refused: the disk is full", metadata: ["call": "\(call)", "error": "\(fault)"])
            fullness.refused(call: call)
            throw APIError(status: .serviceUnavailable, reason: .storageFull,
                           message: "the server's disk is full, so nothing was stored; try again later",
                           headers: [.retryAfter: "30"])
        } catch let fault as StoreFault where fault.isTransient {
            // Nothing was committed, or the request may be sent again: a resend is safe.
            context.logger.error("request failed: the store is unavailable", metadata: ["error": "\(fault)"])
            throw APIError(status: .serviceUnavailable, reason: .storeUnavailable,
                           message: "the store could not be reached; try again", headers: [.retryAfter: "1"])
        } catch let error as HTTPError {
            switch error.status {
            case .notFound:
                if let allowed = routes.allowedMethods(for: request.uri.path) {
                    throw APIError(status: .methodNotAllowed, reason: .methodNotAllowed,
                                   message: "\(request.method) is not allowed on \(request.uri.path); allowed: \(allowed.joined(separator: ", "))",
                                   headers: [.allow: allowed.joined(separator: ", ")])
                }
                throw APIError(status: .notFound, reason: .routeNotFound, message: "no route for \(request.method) \(request.uri.path)")
            case .methodNotAllowed:
                throw APIError(status: .methodNotAllowed, reason: .methodNotAllowed, message: "\(request.method) is not allowed on \(request.uri.path)")
            case .contentTooLarge:
                throw APIError(status: .contentTooLarge, reason: .bodyTooLarge, message: error.body ?? "request body is too large")
            default:
                throw APIError(status: error.status, reason: .httpError, message: error.body ?? "\(error.status)")
            }
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            throw APIError(status: .internalServerError, reason: .internalError, message: "the server failed to handle the request")
        }
    }
}
