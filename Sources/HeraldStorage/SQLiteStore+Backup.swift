import Foundation
import GRDB
import HeraldCore

/// The copy did not pass `PRAGMA integrity_check`; it was removed.
public struct BackupFailedIntegrityCheck: Error, CustomStringConvertible {
    public var verdict: [String]
    public var description: String { "the backup failed its integrity check: \(verdict.prefix(3).joined(separator: "; "))" }
}

/// A store that copies itself while it keeps serving (`herald backup`, `POST /v1/admin/backup`).
public protocol OnlineBackup: Sendable {
    /// Writes a consistent copy of the store to `destination`, a file that must not exist yet.
    ///
    /// - parameter destination: Where the copy goes; its directory must exist.
    /// - returns: The copy's size and path.
    /// - throws: `HeraldError` `backupDestinationExists` or `invalidBackupDestination`; a
    ///   ``BackupFailedIntegrityCheck``; a `DatabaseError` when the copy cannot be written.
    func backup(to destination: String) async throws -> BackupReport
}

extension SQLiteStore: OnlineBackup {
    /// Pages copied per step of SQLite's online backup API: each step is a short read.
    static let backupPagesPerStep: CInt = 256

    /// Copies the database with SQLite's online backup API, from one read transaction.
    ///
    /// The source is read from a WAL snapshot, so the copy is the database as of one commit and
    /// writers are never blocked: they keep appending to the WAL while the snapshot is copied.
    /// The copy goes to `destination.partial`, passes `PRAGMA integrity_check`, and only then is
    /// renamed into place, so a file at `destination` is always a whole, checked copy.
    ///
    /// ```swift
    /// let report = try await store.backup(to: "/var/backups/herald-2026-11-26.sqlite")
    /// print(report.bytes)
    /// ```
    public func backup(to destination: String) async throws -> BackupReport {
        try await backup(to: destination, pagesPerStep: Self.backupPagesPerStep, afterStep: nil)
    }

    /// The backup, with the step size and a hook after each step (tests pause a copy half-way).
    func backup(to destination: String, pagesPerStep: CInt,
                afterStep: (@Sendable (_ remainingPages: Int) -> Void)?) async throws -> BackupReport {
        let target = URL(fileURLWithPath: destination).standardizedFileURL
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: target.deletingLastPathComponent().path, isDirectory: &isDirectory),
              isDirectory.boolValue else {
            throw HeraldError.invalid(.invalidBackupDestination, "the directory of \(target.path) does not exist")
        }
        guard !fileManager.fileExists(atPath: target.path) else {
            throw HeraldError(.conflict, reason: .backupDestinationExists, message: "\(target.path) exists; a backup never overwrites")
        }
        let partial = target.path + ".partial"
        for suffix in ["", "-wal", "-shm", "-journal"] { try? fileManager.removeItem(atPath: partial + suffix) }
        let started = ContinuousClock.now
        do {
            let pages: Int = try await Task.detached { [pool] in
                let copy = try DatabaseQueue(path: partial)
                var pages = 0
                try pool.backup(to: copy, pagesPerStep: pagesPerStep) { progress in
                    pages = progress.totalPageCount
                    if !progress.isCompleted { afterStep?(progress.remainingPageCount) }
                }
                let verdict = try copy.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
                guard verdict == ["ok"] else { throw BackupFailedIntegrityCheck(verdict: verdict) }
                try copy.close()
                return pages
            }.value
            try fileManager.moveItem(atPath: partial, toPath: target.path)
            let bytes = (try fileManager.attributesOfItem(atPath: target.path)[.size] as? NSNumber)?.int64Value ?? 0
            return BackupReport(path: target.path, bytes: bytes, pages: pages, duration: ContinuousClock.now - started)
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? fileManager.removeItem(atPath: partial + suffix) }
            throw error
        }
    }
}
