"""Invariants, judged from plain data: what the clients saw (a history) and what the store holds
at the end (a snapshot). Nothing here talks to a server, so `test_checker.py` can feed it
made-up histories.

The history is a list of events in the order the recorder saw them (client.Recorder):
    {"type": "receive", "device", "notification", "occurrence", "seq", "at", "node", "via"}
        an item handed to the client; `at` (epoch seconds) is when its answer or SSE frame
        arrived, so the server handed it over at or before `at`
    {"type": "ack", "device", "upto", "at", "node", "via"}
        a request acknowledging up to `upto` was answered 2xx (a confirmed ack)

The snapshot (`store_snapshot`) is plain rows of the app:
    fire_log  [{"device", "notification", "occurrence", "outcome", "channel", "scheduled_for",
                "fired_at", "claimed_by"}]: the `delivery` table, one row per firing
    inbox     [{"device", "notification", "occurrence", "seq", "acknowledged"}]: the fire-log
                rows with an `inbox_seq`, acknowledged ones included (an inbox item *is* its
                fire-log row, on both backends)
    scheduled_left  [(device, notification id)]: `notification` rows not fired yet
Schemas: Sources/HeraldPostgres/PostgresSchema.swift, Sources/HeraldStorage/SQLiteSchema.swift.

Verdicts on scheduled one-shots (device, notification id); a run fails if any is above 0:
- missing: never received and not acked_unseen; the example says why, from the store.
- acked_unseen: handed over (inbox or stream), gone from the inbox, never received.
- twice: received again after a confirmed ack covering it.
- duplicate: handed over more than once, ack or no ack: two fire-log rows for one (occurrence,
  device), one notification fired as two occurrences, one occurrence under two hand-over ids
  (seq) in the inbox table or in what the client received.
- early: received more than EARLY_TOLERANCE_MS before its instant.
- pending: fire-log rows still 'pending' at the end.
"""

import sqlite3
from collections import defaultdict

# The reference clock is the machine's: the harness, PostgreSQL and every node share it (a
# skewed node only adds its skew inside Herald). A claim takes what falls due within the
# scheduler's batch window (scheduler.batchWindowMs, 2 ms by default; the harness keeps it) by
# the database's clock, which PostgreSQL rounds to the nearest millisecond (up to 0.5 ms ahead):
# an item handed over up to 3 ms before its instant is on time by design.
EARLY_TOLERANCE_MS = 3

# A run fails if any of these is above 0.
FAILING = ("missing", "twice", "duplicate", "acked_unseen", "pending", "early")

HANDED_OVER = {("inbox", "held"), ("stream", "delivered")}


# -- reading the store ---------------------------------------------------------------------------

class PostgresStoreReader:
    def __init__(self, pg):
        self.pg = pg

    def rows(self, sql):
        return self.pg.psql(sql, timeout=60)

    @staticmethod
    def fire_log_sql(app):
        return (f"SELECT device_id, notification_id, occurrence_id, outcome, channel, scheduled_for, fired_at, "
                f"coalesce(claimed_by, '') FROM delivery WHERE app_id = '{app}'")

    @staticmethod
    def inbox_sql(app):
        # An inbox item is its firing's fire-log row; acknowledged ones stay, marked.
        return (f"SELECT device_id, notification_id, occurrence_id, inbox_seq, "
                f"CASE WHEN inbox_acknowledged THEN 1 ELSE 0 END FROM delivery "
                f"WHERE app_id = '{app}' AND inbox_seq IS NOT NULL")


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
    def fire_log_sql(app):
        # One node, no claims between nodes: no claimed_by column.
        return (f"SELECT device_id, notification_id, occurrence_id, outcome, channel, scheduled_for, fired_at, '' "
                f"FROM delivery WHERE app_id = '{app}'")

    @staticmethod
    def inbox_sql(app):
        # An inbox item is its firing's fire-log row; acknowledging it sets inbox_acknowledged.
        return (f"SELECT device_id, notification_id, occurrence_id, inbox_seq, inbox_acknowledged FROM delivery "
                f"WHERE app_id = '{app}' AND inbox_seq IS NOT NULL")


def store_snapshot(reader, app):
    """The app's fire log, inbox and not-yet-fired notifications, as plain rows."""
    q = app.replace("'", "''")
    fire_log = [{"device": d, "notification": n, "occurrence": o, "outcome": out, "channel": ch,
                 "scheduled_for": int(s), "fired_at": int(f), "claimed_by": by}
                for d, n, o, out, ch, s, f, by in reader.rows(reader.fire_log_sql(q))]
    inbox = [{"device": d, "notification": n, "occurrence": o, "seq": int(seq), "acknowledged": ack == "1"}
             for d, n, o, seq, ack in reader.rows(reader.inbox_sql(q))]
    left = [(d, n) for d, n in reader.rows(f"SELECT device_id, id FROM notification WHERE app_id = '{q}'")]
    return {"fire_log": fire_log, "inbox": inbox, "scheduled_left": left}


# -- judging -------------------------------------------------------------------------------------

class Tally:
    """Counts per bucket, and up to five examples each."""

    def __init__(self, always=FAILING):
        self.counts = defaultdict(int, {name: 0 for name in always})
        self.examples = defaultdict(list)

    def note(self, bucket, key, detail=""):
        self.counts[bucket] += 1
        if len(self.examples[bucket]) < 5:
            self.examples[bucket].append(f"{key[0]}/{key[1]}{(' ' + detail) if detail else ''}")


def check_deliveries(scheduled, history, snapshot, tolerance_ms=EARLY_TOLERANCE_MS):
    """`scheduled`: [{"device", "id", "at_ms"}] answered 201. Returns (counts, examples); the
    run fails if any count named in FAILING is above 0 (`failing_reasons`)."""
    tally = Tally()
    due = {(s["device"], s["id"]): s["at_ms"] for s in scheduled}
    receipts = [e for e in history if e["type"] == "receive"]
    tally.counts["scheduled"] = len(due)
    judge_received(tally, due, receipts, snapshot)
    judge_history(tally, history)
    judge_duplicates(tally, receipts, snapshot)
    judge_early(tally, due, receipts, tolerance_ms)
    judge_store(tally, snapshot)
    return dict(tally.counts), dict(tally.examples)


def failing_reasons(counts):
    return [f"{name}={counts[name]}" for name in FAILING if counts.get(name, 0)]


def judge_received(tally, due, receipts, snapshot):
    """received / missing / acked_unseen: for each scheduled item never received, the store
    says why, and it lands in exactly one bucket."""
    received = {(r["device"], r["notification"]) for r in receipts}
    fire_log = group(snapshot["fire_log"], lambda r: (r["device"], r["notification"]))
    waiting = {(i["device"], i["notification"]) for i in snapshot["inbox"] if not i["acknowledged"]}
    left = set(map(tuple, snapshot["scheduled_left"]))
    for key in due:
        if key in received:
            tally.counts["received"] += 1
            continue
        rows = fire_log.get(key, [])
        if any((r["channel"], r["outcome"]) in HANDED_OVER for r in rows) and key not in waiting:
            tally.note("acked_unseen", key)
        elif not rows:
            tally.note("missing", key, "never fired" + (" (still scheduled)" if key in left else ""))
        elif key in waiting:
            tally.note("missing", key, "still in the inbox")
        elif any(r["outcome"] == "pending" for r in rows):
            tally.note("missing", key, "firing still pending")
        else:
            tally.note("missing", key, "outcome " + ",".join(f"{r['channel']}/{r['outcome']}" for r in rows))
    tally.counts["unexpected"] = len({k for k in received if k not in due})


def judge_history(tally, history):
    """twice (a verdict) and, for information, redelivered_unacked (received again before any
    confirmed ack covered it: allowed, hand-over is at least once until acknowledged) and
    below_watermark (a seq at or below an ack already confirmed: committed out of order)."""
    seqs = defaultdict(dict)          # device -> occurrence -> lowest seq received
    acked = defaultdict(set)          # device -> occurrences covered by a confirmed ack
    watermark = {}                    # device -> highest confirmed ack
    for event in history:
        device = event["device"]
        if event["type"] == "ack":
            for occurrence, seq in seqs[device].items():
                if seq <= event["upto"]:
                    acked[device].add(occurrence)
            watermark[device] = max(watermark.get(device, event["upto"]), event["upto"])
            continue
        occurrence, seq = event["occurrence"], event["seq"]
        if occurrence in acked[device]:
            tally.note("twice", (device, event["notification"]), f"seq {seq} again after an ack covering it")
        elif occurrence in seqs[device]:
            tally.counts["redelivered_unacked"] += 1
        if device in watermark and seq <= watermark[device]:
            tally.counts["below_watermark"] += 1
        seqs[device][occurrence] = min(seq, seqs[device].get(occurrence, seq))


def judge_duplicates(tally, receipts, snapshot):
    """duplicate: one item handed over more than once, whether or not an ack came between.
    Counted once per (device, notification); the example gives the evidence."""
    evidence = defaultdict(list)
    for key, rows in group(snapshot["fire_log"], lambda r: (r["device"], r["notification"])).items():
        by_occurrence = group(rows, lambda r: r["occurrence"])
        for occurrence, same in by_occurrence.items():
            if len(same) > 1:
                evidence[key].append(f"{len(same)} fire-log rows for occurrence {occurrence}")
        if len(by_occurrence) > 1:
            # The harness schedules each one-shot once, before it is due: one firing at most.
            evidence[key].append(f"fired as {len(by_occurrence)} occurrences")
    for key, items in group(snapshot["inbox"], lambda i: (i["device"], i["notification"])).items():
        for occurrence, same in group(items, lambda i: i["occurrence"]).items():
            seqs = sorted({i["seq"] for i in same})
            if len(seqs) > 1:
                evidence[key].append(f"occurrence {occurrence} in the inbox under seqs {seqs}")
    for key, got in group(receipts, lambda r: (r["device"], r["notification"])).items():
        for occurrence, same in group(got, lambda r: r["occurrence"]).items():
            seqs = sorted({r["seq"] for r in same})
            if len(seqs) > 1:
                evidence[key].append(f"occurrence {occurrence} received under seqs {seqs}")
        occurrences = {r["occurrence"] for r in got}
        if len(occurrences) > 1:
            evidence[key].append(f"received as {len(occurrences)} occurrences")
    for key, found in sorted(evidence.items()):
        tally.note("duplicate", key, "; ".join(found))


def judge_early(tally, due, receipts, tolerance_ms):
    """early: an item whose answer (or frame) arrived before its instant, beyond the tolerance.
    For information, how soon after its instant each item was first received (first_lag_*_ms):
    small lags show the clients were asking while the items fell due, so early could be seen."""
    first = {}
    for r in receipts:
        key = (r["device"], r["notification"])
        if key not in due:
            continue
        lag = r["at"] * 1000 - due[key]
        first[key] = min(lag, first.get(key, lag))
        if lag < -tolerance_ms:
            tally.note("early", key, f"{-lag:.0f} ms early (seq {r['seq']} via {r['via']} from {r['node']})")
    if first:
        lags = sorted(first.values())
        tally.counts["first_lag_min_ms"] = round(lags[0])
        tally.counts["first_lag_median_ms"] = round(lags[len(lags) // 2])


def judge_store(tally, snapshot):
    """pending (a verdict), and for information: inbox_left, claimed_early (fire-log rows whose
    fired_at is before their instant: the claim's batch window, or a node whose clock runs behind)."""
    pending = [r for r in snapshot["fire_log"] if r["outcome"] == "pending"]
    for r in pending:
        tally.note("pending", (r["device"], r["notification"]))
    for r in snapshot["fire_log"]:
        if r["fired_at"] < r["scheduled_for"]:
            tally.counts["claimed_early"] += 1
            tally.counts["claimed_early_max_ms"] = max(tally.counts["claimed_early_max_ms"],
                                                       r["scheduled_for"] - r["fired_at"])
    tally.counts["inbox_left"] = sum(1 for i in snapshot["inbox"] if not i["acknowledged"])


def group(rows, key):
    out = defaultdict(list)
    for row in rows:
        out[key(row)].append(row)
    return out


# -- the fault itself ----------------------------------------------------------------------------

def _claims_ahead(s):
    return s.get("claimed_by_ahead", 0) > 0

# scenario -> [(what must have happened, test on the fault's stats)]. A run whose fault did not
# happen tested nothing: it fails, whatever the deliveries say.
FAULT_REQUIRED = {
    "terminate": [("PostgreSQL backends terminated during the burst", lambda s: s.get("backends_terminated", 0) > 0)],
    "silent": [("proxied connections silenced", lambda s: s.get("connections_silenced", 0) > 0)],
    "pause": [("the node seen stopped (state T) after SIGSTOP", lambda s: s.get("seen_stopped", 0) > 0),
              ("the node seen running again after SIGCONT", lambda s: s.get("seen_resumed", 0) > 0)],
    "restart": [("PostgreSQL restarted (a new postmaster start time)", lambda s: s.get("pg_restarted", 0) > 0)],
    "kill9": [("the node killed by SIGKILL", lambda s: s.get("killed_by_signal") == 9),
              ("the node started again and healthy", lambda s: s.get("restarted", 0) > 0)],
    "skew": [("every node running with its skew (HERALD_TEST_CLOCK_SKEW_MS in its environment)",
              lambda s: s.get("skewed_nodes", 0) > 0 and s.get("skewed_nodes") == s.get("nodes")),
             ("the node whose clock runs ahead claimed firings", _claims_ahead),
             ("its fire-log stamps show its clock ahead (median fired_at - scheduled_for >= half its skew)",
              lambda s: _claims_ahead(s) and s.get("ahead_stamp_median_ms", 0) * 2 >= s.get("ahead_skew_ms", 1))],
    "ackrace": [("acks confirmed during the burst", lambda s: s.get("acks_in_burst", 0) > 0),
                ("... through at least 2 nodes (1 with --sqlite)",
                 lambda s: s.get("ack_nodes_in_burst", 0) >= s.get("ack_nodes_needed", 2))],
    "liveevents": [("PostgreSQL backends terminated", lambda s: s.get("backends_terminated", 0) > 0),
                   ("streams dropped and reconnected", lambda s: s.get("streams_dropped", 0) > 0)],
    "slowfeedback": [("answers given after the receiver's delay", lambda s: s.get("slow_answers", 0) > 0)],
    "slowfeedback_retry": [("first attempts answered 500", lambda s: s.get("answered_500", 0) > 0),
                           ("answers given after the receiver's delay", lambda s: s.get("slow_answers", 0) > 0)],
    "sigterm": [("SIGTERM sent", lambda s: s.get("sigterm_sent", 0) > 0),
                ("the node exited after it", lambda s: s.get("exited", 0) > 0),
                ("the node started again", lambda s: s.get("restarted", 0) > 0)],
}
FAULT_REQUIRED["ackrace_sse"] = FAULT_REQUIRED["ackrace"]


def fault_reasons(scenario, stats):
    """A reason for each thing the scenario's fault needed that did not happen."""
    shown = ", ".join(f"{k}={v}" for k, v in sorted(stats.items())) or "nothing recorded"
    return [f"fault not seen: {what} ({shown})"
            for what, happened in FAULT_REQUIRED.get(scenario, []) if not happened(stats)]


# -- feedback ------------------------------------------------------------------------------------

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
