/// Why the sandbox could not start; each message says what to fix.
public enum SandboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The admin API is unauthenticated, so it may only listen on loopback.
    case adminNotLoopback(host: String)
    /// A certificate, key or CA file is not there (usually: run from the repository root, or pass `--certs`).
    case missingFile(String)
    /// A trusted token key could not be read as an EC P-256 public key.
    case unreadableKey(keyID: String, path: String, detail: String)
    case alreadyStarted
    case adminServerFailed(String)

    public var description: String {
        switch self {
        case .adminNotLoopback(let host):
            return "the admin API has no authentication and must listen on loopback (127.0.0.1, ::1 or localhost), not \(host)"
        case .missingFile(let path):
            return "\(path) does not exist (run from the repository root or pass --certs DIR)"
        case .unreadableKey(let keyID, let path, let detail):
            return "cannot read the token key \(keyID) from \(path): \(detail)"
        case .alreadyStarted:
            return "the sandbox is already started"
        case .adminServerFailed(let message):
            return "the admin server failed: \(message)"
        }
    }
}
