/// A refusal with a stable, machine-readable reason.
///
/// The core says *what kind* of refusal it is; the API maps the kind to an HTTP status. Reasons are
/// camelCase and never change once published, so clients can branch on them.
public struct HeraldError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The request could not be read at all (malformed JSON, bad query parameter).
        case badRequest
        /// Something named does not exist.
        case notFound
        /// Well-formed, but it breaks a rule of the domain (an unknown zone, a bad repeat).
        case invalid
        /// It conflicts with what is stored (the 128 limit).
        case conflict
        /// The body is over the configured size limit.
        case tooLarge
        /// The caller's key may not do this (an app key naming a server file, say).
        case forbidden
    }

    public var kind: Kind
    public var reason: Reason
    public var message: String

    public init(_ kind: Kind, reason: Reason, message: String) {
        self.kind = kind
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }

    public static func invalid(_ reason: Reason, _ message: String) -> HeraldError {
        HeraldError(.invalid, reason: reason, message: message)
    }

    public static func notFound(_ reason: Reason, _ message: String) -> HeraldError {
        HeraldError(.notFound, reason: reason, message: message)
    }

    public static func badRequest(_ reason: Reason, _ message: String) -> HeraldError {
        HeraldError(.badRequest, reason: reason, message: message)
    }

    public static func forbidden(_ message: String) -> HeraldError {
        HeraldError(.forbidden, reason: .forbidden, message: message)
    }
}
