"""Schemathesis hooks for Herald: every 4xx has the documented error shape, and a refused
request changes nothing stored.

Loaded through SCHEMATHESIS_HOOKS by run.sh, which sets HERALD_FUZZ_DB (the server's SQLite
file), HERALD_FUZZ_BASE and HERALD_FUZZ_KEY. Runs with one worker: the snapshot taken before a
call belongs to that call.

Before each call the seeded resources are restored if a fuzzed DELETE or PUT removed them, so
the rest of the run still reaches past 404s; and about half of the calls to the seeded hook are
signed with its secret, so fuzzing gets past the signature check too.
"""

import atexit
import hashlib
import hmac
import json
import os
import re
import sqlite3
import sys
import time
import zlib

import schemathesis

import seed

DB_PATH = os.environ["HERALD_FUZZ_DB"]
BASE = os.environ["HERALD_FUZZ_BASE"]
KEY = os.environ["HERALD_FUZZ_KEY"]

# Not compared at all. sqlite_sequence is AUTOINCREMENT's counter: it moves with every insert,
# the timer's included, and any insert that stays is seen in its own table anyway.
# hand_over_sequence is the inbox's id counter, which the dispatcher draws from on its own.
# grdb_migrations only changes when the server starts.
IGNORED_TABLES = {"sqlite_sequence", "hand_over_sequence", "grdb_migrations"}

# Tables the timer and the delivery dispatcher write to on their own, while a request runs:
# firing a due notification appends deliveries and feedback events, and the dispatcher later
# fills in a delivery's outcome and, holding it in an inbox, its inbox id (an inbox item is its
# fire-log row). Rows may be added there only for a notification that was already due, and a
# delivery's dispatch columns may change.
FIRING_TABLES = {"delivery", "feedback_event"}
DISPATCH_COLUMNS = {"channel", "outcome", "apns_status", "apns_id", "inbox_seq"}

# Seconds of slack on "was due": the clock in the rows is the server's, read a moment apart.
DUE_SLACK = 2.0


def _connect():
    # Read-only, so the check can never be what changed the database.
    return sqlite3.connect(f"file:{DB_PATH}?mode=ro", uri=True, timeout=10)


def _primary_key(conn, table):
    columns = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    names = [c[1] for c in columns]
    keyed = sorted((c[5], c[1]) for c in columns if c[5] > 0)
    return names, [name for _, name in keyed]


def snapshot():
    """Every table's rows, keyed by primary key (or the whole row), as plain Python values."""
    conn = _connect()
    try:
        # One read transaction, so the picture is of one moment.
        conn.execute("BEGIN")
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        state = {}
        for table in tables:
            if table in IGNORED_TABLES:
                continue
            names, key = _primary_key(conn, table)
            rows = {}
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                record = dict(zip(names, row))
                ident = tuple(record[k] for k in key) if key else tuple(row)
                rows[ident] = record
            state[table] = (names, rows)
        conn.execute("COMMIT")
        return state
    finally:
        conn.close()


def _epoch_seconds(value):
    """next_fire_at and friends as seconds; the store keeps milliseconds."""
    if value is None:
        return None
    return value / 1000.0 if value > 10**11 else float(value)


def unexplained_changes(before, after, now):
    """Differences between two snapshots that the timer or dispatcher cannot account for."""
    problems = []
    due = set()
    old_notes = before.get("notification", ([], {}))[1]
    for record in old_notes.values():
        fire_at = _epoch_seconds(record.get("next_fire_at"))
        if fire_at is not None and fire_at <= now + DUE_SLACK:
            due.add((record["app_id"], record["device_id"], record["id"]))
    for table in sorted(set(before) | set(after)):
        names, old_rows = before.get(table, ([], {}))
        _, new_rows = after.get(table, (names, {}))
        for ident in sorted(set(old_rows) | set(new_rows), key=repr):
            old, new = old_rows.get(ident), new_rows.get(ident)
            if old == new:
                continue
            if table == "notification" and old is not None and \
                    (old["app_id"], old["device_id"], old["id"]) in due:
                continue  # fired: advanced to its next occurrence, or gone when it was the last
            if table in FIRING_TABLES and old is None and new is not None:
                note = (new.get("app_id"), new.get("device_id"), new.get("notification_id"))
                if table == "feedback_event" or note in due:
                    continue
            if table == "delivery" and old is not None and new is not None:
                changed = {k for k in names if old.get(k) != new.get(k)}
                if changed <= DISPATCH_COLUMNS:
                    continue
            problems.append(f"{table} {ident!r}:\n    before: {_show(old)}\n    after:  {_show(new)}")
    return problems


def _show(record):
    if record is None:
        return "(absent)"
    text = json.dumps(record, sort_keys=True, default=str)
    return text if len(text) < 600 else text[:600] + "..."


# Snapshots taken before each call, by case; verdicts computed after it, by response.
_before = {}
_verdicts = {}
_compared = [0]


@atexit.register
def _report_compared():
    # Says the check really ran: a hook wired wrongly would otherwise pass silently.
    print(f"refusal_changes_nothing: compared the stored state around {_compared[0]} refusals", file=sys.stderr)


def _seeded_state_intact():
    conn = _connect()
    try:
        def exists(sql, *args):
            return conn.execute(sql, args).fetchone() is not None
        hook = conn.execute("SELECT definition FROM hook WHERE name = ?", (seed.HOOK,)).fetchone()
        return (exists("SELECT 1 FROM app WHERE id = ?", seed.APP)
                and exists("SELECT 1 FROM device WHERE app_id = ? AND id = ?", seed.APP, seed.DEVICE)
                and exists("SELECT 1 FROM notification WHERE app_id = ? AND device_id = ? AND id = ?",
                           seed.APP, seed.DEVICE, seed.NOTIFICATION)
                and hook is not None and seed.HOOK_SECRET in hook[0] and f'"{seed.APP}"' in hook[0])
    finally:
        conn.close()


def _restore_seeded_state():
    if _seeded_state_intact():
        return
    try:
        seed.seed(BASE, KEY, events=False)
    except Exception as error:  # e.g. the device is full (409): fuzzing goes on with what is there
        print(f"note: could not restore the seeded state: {error}", file=sys.stderr)


def _sign_hook_call(case):
    """Signs a call to the seeded hook, for about half of the generated bodies."""
    if case.method.upper() != "POST" or case.operation.path != "/v1/hooks/{name}":
        return
    if (case.path_parameters or {}).get("name") != seed.HOOK or isinstance(case.body, bytes):
        return
    try:
        raw = json.dumps(case.body, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError):
        return
    if zlib.crc32(raw) % 2:
        return
    meta = getattr(case, "meta", None)
    if meta is not None and getattr(meta.generation.mode, "value", "") != "positive":
        return  # a negative case must stay invalid, or schemathesis rightly expects a refusal
    timestamp = str(int(time.time()))
    code = hmac.new(seed.HOOK_SECRET.encode(), timestamp.encode() + b"." + raw, hashlib.sha256).hexdigest()
    # requests sends a JSON body as json.dumps(body, allow_nan=False), so these are the bytes
    # the server sees. The body itself is left as generated: replacing it with bytes would make
    # schemathesis judge the case anew, as if it were malformed.
    case.headers = dict(case.headers or {})
    case.headers["Herald-Signature"] = f"t={timestamp},v1={code}"


_SEEDED = {"app": seed.APP, "device": seed.DEVICE, "id": seed.NOTIFICATION, "name": seed.HOOK}
_IDENTIFIER = re.compile(r"^[A-Za-z0-9._-]{1,200}$")


@schemathesis.hook
def map_path_parameters(context, path_parameters):
    """Points three in four well-formed generated ids at the seeded resources, so fuzzing
    exercises bodies and queries against things that exist. Malformed ids are left alone: they
    are what a negative case tests."""
    if not path_parameters:
        return path_parameters
    mapped = dict(path_parameters)
    operation = getattr(context, "operation", None)
    path = getattr(operation, "path", "") or ""
    for name, value in path_parameters.items():
        if name == "id" and "/notifications/" not in path:
            continue  # the outbox's ids are integers, not notification ids
        if name in _SEEDED and isinstance(value, str) and _IDENTIFIER.match(value) and zlib.crc32(value.encode()) % 4:
            mapped[name] = _SEEDED[name]
    return mapped


def _phase(case):
    meta = getattr(case, "meta", None)
    return meta.phase.name.value if meta is not None else None


@schemathesis.hook
def before_call(context, case, kwargs):
    # Not in the stateful phase: there schemathesis follows what its own calls created and
    # deleted, and checks that a deleted resource stays gone; restoring it would defeat that.
    if _phase(case) != "stateful":
        _restore_seeded_state()
    _sign_hook_call(case)
    _before[id(case)] = snapshot()


@schemathesis.hook
def after_call(context, case, response):
    before = _before.pop(id(case), None)
    if before is None or not 400 <= response.status_code < 500:
        return
    problems = unexplained_changes(before, snapshot(), time.time())
    # Kept with the response object, so the check below finds exactly this call's verdict.
    _verdicts[id(response)] = (response, problems)


@schemathesis.check
def refusal_changes_nothing(ctx, response, case):
    """A 4xx answer leaves every stored row as it was."""
    entry = _verdicts.pop(id(response), None)
    if entry is None or entry[0] is not response:
        return None
    problems = entry[1]
    _compared[0] += 1
    if problems:
        raise AssertionError(
            f"{response.status_code} refusal changed what is stored:\n  " + "\n  ".join(problems[:10]))
    return None


@schemathesis.check
def error_shape(ctx, response, case):
    """Every 4xx is {"error": {"reason": string, "message": string}}, as JSON."""
    if not 400 <= response.status_code < 500:
        return None
    content_type = response.headers.get("content-type", [""])
    if isinstance(content_type, list):
        content_type = content_type[0] if content_type else ""
    assert content_type.split(";")[0].strip() == "application/json", \
        f"{response.status_code} answered with content type {content_type!r}, not application/json"
    try:
        body = json.loads(response.content)
    except ValueError as error:
        raise AssertionError(f"{response.status_code} body is not JSON: {error}") from None
    detail = body.get("error") if isinstance(body, dict) else None
    assert isinstance(detail, dict) and isinstance(detail.get("reason"), str) and detail["reason"] \
        and isinstance(detail.get("message"), str), \
        f'{response.status_code} body is not {{"error": {{"reason": string, "message": string}}}}: {body!r}'
    return None
