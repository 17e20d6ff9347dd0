"""Invariants, judged from what the clients received and what the store holds at the end.

Store tables (Sources/HeraldPostgres/PostgresSchema.swift, Sources/HeraldStorage/SQLiteSchema.swift):
`delivery` is the fire log (one row per firing, `outcome` 'pending' until delivered, then
'held' for the inbox, 'delivered' for a live stream); what waits for an acknowledgement is in
`device_inbox` on PostgreSQL, and on SQLite is the fire-log row itself (`inbox_seq` set,
`inbox_acknowledged` 0); `notification` holds what has not fired yet.

For every scheduled one-shot (device, notification id) the client never received, the store
says why, and each lands in exactly one bucket:
- acked_unseen: its firing was stored in the inbox (or streamed) and is no longer in the inbox,
  yet the client never got it: an acknowledgement removed what the client had not seen.
- missing: everything else never received: never fired, fired but still pending, still in the
  inbox although the client kept waking, or a final failure.
`twice` (received again after a confirmed ack covered it) comes from the recorder.
"""

import sqlite3
from collections import defaultdict

HANDED_OVER = {("inbox", "held"), ("stream", "delivered")}


class PostgresStoreReader:
    def __init__(self, pg):
        self.pg = pg

    def rows(self, sql):
        return self.pg.psql(sql, timeout=60)

    @staticmethod
    def inbox_sql(app):
        # An acknowledged item may stay as a tombstone while its firing is pending: it is gone
        # for the client, so it is gone here too.
        return f"SELECT device_id, notification_id, key FROM device_inbox WHERE app_id = '{app}' AND NOT acknowledged"


class SQLiteStoreReader:
    def __init__(self, path):
        self.path = path

    def rows(self, sql):
        conn = sqlite3.connect(self.path, timeout=30)
        try:
            return [[("" if v is None else str(v)) for v in row] for row in conn.execute(sql)]
        finally:
            conn.close()

    @staticmethod
    def inbox_sql(app):
        # An inbox item is its firing's fire-log row, until the client acknowledges it.
        return (f"SELECT device_id, notification_id, inbox_seq FROM delivery WHERE app_id = '{app}' "
                f"AND inbox_seq IS NOT NULL AND inbox_acknowledged = 0")


def store_snapshot(reader, app):
    """The fire log, the inboxes and the pending notifications of `app`."""
    q = app.replace("'", "''")
    deliveries = defaultdict(list)
    for device, nid, occ, outcome, channel, sched, fired in reader.rows(
            f"SELECT device_id, notification_id, occurrence_id, outcome, channel, scheduled_for, fired_at "
            f"FROM delivery WHERE app_id = '{q}'"):
        deliveries[(device, nid)].append({"occurrence": occ, "outcome": outcome, "channel": channel,
                                          "scheduled_for": int(sched), "fired_at": int(fired)})
    inbox = defaultdict(list)
    for device, nid, key in reader.rows(reader.inbox_sql(q)):
        inbox[(device, nid)].append(int(key))
    pending_notifications = {(d, n) for d, n in reader.rows(
        f"SELECT device_id, id FROM notification WHERE app_id = '{q}'")}
    return {"deliveries": deliveries, "inbox": inbox, "notifications": pending_notifications}


def check_deliveries(scheduled, recorder, snapshot):
    """`scheduled`: [{"device", "id", "at_ms"}] answered 201. Returns (counts, examples)."""
    received = defaultdict(list)
    for r in recorder.receipts:
        received[(r.device, r.notification_id)].append(r)
    expected = {(s["device"], s["id"]): s for s in scheduled}
    deliveries, inbox = snapshot["deliveries"], snapshot["inbox"]

    counts = defaultdict(int)
    for always in ("received", "missing", "twice", "acked_unseen", "pending", "early"):
        counts[always] = 0
    examples = defaultdict(list)

    def note(bucket, key, detail=""):
        counts[bucket] += 1
        if len(examples[bucket]) < 5:
            examples[bucket].append(f"{key[0]}/{key[1]}{(' ' + detail) if detail else ''}")

    counts["scheduled"] = len(expected)
    for key, item in expected.items():
        got = received.get(key)
        if got:
            counts["received"] += 1
            early = [r for r in got if r.at * 1000 < item["at_ms"]]
            if early:
                note("early", key, f"{max(item['at_ms'] - r.at * 1000 for r in early):.0f} ms early")
            continue
        rows = deliveries.get(key, [])
        if any((r["channel"], r["outcome"]) in HANDED_OVER for r in rows) and key not in inbox:
            note("acked_unseen", key)
        elif not rows:
            note("missing", key, "never fired" + (" (still scheduled)" if key in snapshot["notifications"] else ""))
        elif key in inbox:
            note("missing", key, "still in the inbox")
        elif any(r["outcome"] == "pending" for r in rows):
            note("missing", key, "firing still pending")
        else:
            note("missing", key, "outcome " + ",".join(f"{r['channel']}/{r['outcome']}" for r in rows))

    for device, occurrence, seq in recorder.twice:
        counts["twice"] += 1
        if len(examples["twice"]) < 5:
            examples["twice"].append(f"{device}/{occurrence} seq {seq}")

    # The store's view, for all of the app's firings.
    for key, rows in deliveries.items():
        counts["pending"] += sum(1 for r in rows if r["outcome"] == "pending")
        if len(rows) > 1:
            note("fire_log_repeats", key, f"{len(rows)} rows")
        for r in rows:
            if r["fired_at"] < r["scheduled_for"]:
                counts["claimed_early"] += 1
                counts["claimed_early_max_ms"] = max(counts["claimed_early_max_ms"], r["scheduled_for"] - r["fired_at"])
    if counts["pending"]:
        examples["pending"] = [f"{k[0]}/{k[1]}" for k, rows in deliveries.items()
                               if any(r["outcome"] == "pending" for r in rows)][:5]
    counts["inbox_left"] = sum(len(v) for v in inbox.values())
    counts["unexpected"] = sum(1 for key in received if key not in expected)
    counts["redelivered_unacked"] = recorder.redelivered_unacked
    counts["below_watermark"] = recorder.below_watermark
    counts["request_errors"] = sum(recorder.errors.values())
    return dict(counts), dict(examples)


def check_feedback(expected_ids, log):
    """`expected_ids`: notification ids whose `notification.evicted` event must arrive.
    `log`: the receiver's requests. Each event must be answered 2xx exactly once."""
    counts = defaultdict(int)
    for always in ("delivered", "missing", "twice", "bad_signature"):
        counts[always] = 0
    examples = defaultdict(list)
    delivered_by_event = defaultdict(int)
    event_of_notification = {}
    for entry in log:
        counts["requests"] += 1
        if not entry["signature_ok"]:
            counts["bad_signature"] += 1
        if entry["answered"] < 300:
            delivered_by_event[entry["event_id"]] += 1
            nid = entry.get("notification_id")
            if nid is not None:
                event_of_notification.setdefault(nid, entry["event_id"])
    ok_entries = defaultdict(list)
    for entry in log:
        if entry["answered"] < 300:
            ok_entries[entry["event_id"]].append(entry)
    counts["events"] = len(expected_ids)
    for nid in expected_ids:
        event = event_of_notification.get(nid)
        if event is None:
            counts["missing"] += 1
            if len(examples["missing"]) < 5:
                examples["missing"].append(nid)
            continue
        counts["delivered"] += 1
        if delivered_by_event[event] > 1:
            counts["twice"] += 1
            # Sent again while the first request was still open: not a retry after a timeout
            # but a second sender (a claim whose lease ran out under a request in flight).
            first, *others = sorted(ok_entries[event], key=lambda e: e["started"])
            overlapping = any(o["started"] < first["finished"] for o in others)
            counts["twice_overlapping"] += overlapping
            if len(examples["twice"]) < 5:
                starts = ", ".join(f"+{e['started'] - first['started']:.1f}s" for e in others)
                examples["twice"].append(f"{nid} (event {event}) delivered {delivered_by_event[event]}x, "
                                         f"again at {starts}{' while the first was open' if overlapping else ''}")
    known = {event_of_notification[n] for n in expected_ids if n in event_of_notification}
    counts["unexpected"] = sum(1 for e in delivered_by_event if e not in known)
    return dict(counts), dict(examples)
