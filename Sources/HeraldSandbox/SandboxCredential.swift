/// How the sender of an accepted push proved who it is, kept with each inbox entry so a
/// developer can see which credentials a notification went out with.
public enum SandboxCredential: Codable, Sendable, Equatable {
    /// `authorization: bearer <jwt>`, verified against a trusted key.
    case token(keyID: String, teamID: String)
    /// A TLS client certificate that chains to the dev CA; the subject in RFC 2253 form.
    case certificate(subject: String)
}
