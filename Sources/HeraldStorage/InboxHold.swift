/// What holding firings in their inboxes stores as their outcome.
///
/// A firing held because it can go nowhere else ends there: its outcome (held) is written with
/// the hold, once. A firing held on its way to a live stream is told to the stream next, and
/// only then is its outcome known (streamed, or held when no stream took the word): until the
/// dispatcher stores it, the fire log says pending, never an outcome that is about to change.
public enum InboxHold: Sendable {
    /// The inbox is where the firings end: the held outcome is stored with them.
    case final
    /// A live stream is told next: the outcome stays pending for the dispatcher to store.
    case beforeStreaming
}
