"""The scenarios. Each takes a `Run` (one seed, its own PostgreSQL, nodes and work dir) and returns
(verdict counts, examples, reasons it failed). All choices come from the run's seeded RNGs.
"""

import datetime
import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import checker
from client import Recorder, SSEStream, parse_block, record_stream_blocks, stream_path, wake
from cluster import DRAIN_MS, LEASE_MS, Cluster
from feedback import FeedbackReceiver
from net import Client, HTTPFailure
from postgres import Postgres
from proxy import Proxy

APP = "com.example.faults"
SETTLE_S = 30.0          # clients keep collecting this long after the last instant
CLIENT_LEAD_S = 0.5      # clients start waking this long before the first instant
FEEDBACK_SECRET = "fault-harness-secret"

# Sizes: full, then --quick.
BURST = {False: dict(items=2000, devices=100, spread=4.0), True: dict(items=300, devices=20, spread=4.0)}
ACKRACE = {False: dict(devices=20, per_device=100, spread=1.0), True: dict(devices=10, per_device=40, spread=3.0)}
FEEDBACK_EVENTS = {False: 20, True: 10}


def rfc3339(ms):
    whole = datetime.datetime.fromtimestamp(ms // 1000, tz=datetime.timezone.utc)
    return whole.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def sleep_until(t):
    while True:
        left = t - time.time()
        if left <= 0:
            return
        time.sleep(min(left, 0.5))


class Run:
    """One (scenario, seed): its RNG, processes, client and recorder."""

    def __init__(self, scenario, seed, node_count, quick, binary, work_dir, resources, sqlite=False):
        self.scenario = scenario
        self.sqlite = sqlite      # one node on SQLite instead of nodes on PostgreSQL
        self.seed = seed
        self.node_count = node_count
        self.quick = quick
        self.binary = binary
        self.work_dir = work_dir
        self.res = resources
        self.rng = random.Random(f"{scenario}:{seed}")
        self.http = Client(timeout=3.0)
        self.recorder = Recorder()
        self.t0 = time.time()
        self.timeline = []
        self.pg = None
        self.proxy = None
        self.cluster = None
        self.failures = []        # server misbehaviour seen while injecting a fault
        self.fault_error = None   # the harness could not inject its fault

    def finish(self, counts, examples):
        """Stops the nodes with SIGTERM as an operator would, and notes any that did not exit 0
        within the drain time (information: the sigterm scenario is the one that judges it)."""
        if self.cluster is None:
            return
        statuses = self.cluster.stop_all()
        unclean = {name: code for name, code in statuses.items() if code != 0}
        if unclean:
            counts["unclean_stop"] = len(unclean)
            examples["unclean_stop"] = [f"{name}: {'still running: killed' if code is None else describe_exit(code)}"
                                        for name, code in sorted(unclean.items())]

    def rng_for(self, what):
        """A separate, reproducible RNG for one thread or purpose."""
        return random.Random(f"{self.scenario}:{self.seed}:{what}")

    def note(self, text):
        line = f"{time.time() - self.t0:7.2f}s  {text}"
        self.timeline.append(line)
        print(line, flush=True)

    # -- infrastructure ----------------------------------------------------------------------

    def start_postgres(self):
        self.pg = Postgres(self.res, self.work_dir)
        self.pg.start()
        self.note(f"PostgreSQL on port {self.pg.port}")

    def start_nodes(self, count, via_proxy=False, extra_config=None, sqlite=False, node_env=None):
        url = None
        if not sqlite:
            url = self.pg.url
            if via_proxy:
                self.proxy = Proxy(self.pg.port).start()
                self.res.on_cleanup(self.proxy.close)
                url = f"postgres://herald@127.0.0.1:{self.proxy.port}/herald"
                self.note(f"proxy on port {self.proxy.port} -> {self.pg.port}")
        self.cluster = Cluster(self.res, self.binary, self.work_dir, url, extra_config)
        self.cluster.node_env = node_env or {}
        self.cluster.start(count)
        self.note("nodes up: " + ", ".join(map(repr, self.cluster.nodes)))

    @property
    def nodes(self):
        return self.cluster.nodes

    def start_store_and_nodes(self, count, extra_config=None, node_env=None):
        """PostgreSQL and `count` nodes, or with --sqlite one node on SQLite."""
        if self.sqlite:
            self.start_nodes(1, sqlite=True, extra_config=extra_config, node_env=node_env)
        else:
            self.start_postgres()
            self.start_nodes(count, extra_config=extra_config, node_env=node_env)

    def store_reader(self):
        if self.sqlite:
            return checker.SQLiteStoreReader(f"{self.nodes[0].data_dir}/herald.sqlite")
        return checker.PostgresStoreReader(self.pg)

    # -- API -----------------------------------------------------------------------------------

    def call(self, method, path, body=None, node=None, attempts=5):
        """A setup request, retried through other nodes on no answer or 5xx."""
        last = None
        for i in range(attempts):
            target = node or self.nodes[i % len(self.nodes)]
            try:
                reply = self.http.request(method, target.port, path, body)
                if reply.status < 500:
                    return reply
                last = reply
            except HTTPFailure as error:
                last = error
            time.sleep(0.2)
        raise RuntimeError(f"{method} {path}: {last}")

    def put_app(self, body=None):
        reply = self.call("PUT", f"/v1/apps/{APP}", body or {})
        if reply.status not in (200, 201):
            raise RuntimeError(f"PUT app: {reply}")

    def put_devices(self, devices):
        def put(device):
            reply = self.call("PUT", f"/v1/apps/{APP}/devices/{device}", {"timeZone": "UTC"})
            if reply.status not in (200, 201):
                raise RuntimeError(f"PUT device {device}: {reply}")
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(put, devices))

    def schedule(self, item):
        """POSTs one notification (retried on no answer: the same id replaces, so a retry after a
        lost answer changes nothing). Returns the reply, or None if no node answered."""
        body = {"id": item["id"], "fireDate": rfc3339(item["at_ms"]), "alert": {"body": item["id"]}}
        path = f"/v1/apps/{APP}/devices/{item['device']}/notifications"
        order = [item["node"]] + [n for n in self.nodes if n is not item["node"]]
        for attempt in range(4):
            try:
                reply = self.http.request("POST", order[attempt % len(order)].port, path, body)
            except HTTPFailure:
                continue
            if reply.status < 500:
                return reply
        return None

    def schedule_all(self, items, workers=8):
        """Schedules `items` (earliest first); returns (accepted, refused)."""
        ordered = sorted(items, key=lambda i: i["at_ms"])
        with ThreadPoolExecutor(workers) as pool:
            replies = list(pool.map(self.schedule, ordered))
        accepted, refused = [], []
        for item, reply in zip(ordered, replies):
            (accepted if reply is not None and reply.status in (200, 201) else refused).append((item, reply))
        return [i for i, _ in accepted], refused

    def measure_schedule_rate(self, probes=120, devices=8):
        """Schedules per second through the nodes now, measured the way the burst is scheduled
        (8 at a time, spread over devices: one device's schedules serialize on its row), with
        notifications far in the future on probe devices deleted afterwards."""
        names = [f"probe-{i}" for i in range(devices)]
        self.put_devices(names)
        far = int((time.time() + 86400) * 1000)
        items = [{"device": names[i % devices], "id": f"probe-{i}", "at_ms": far + i,
                  "node": self.nodes[i % len(self.nodes)]} for i in range(probes)]
        self.schedule_all(items[:16])          # warm the connections
        started = time.time()
        self.schedule_all(items[16:])
        rate = (probes - 16) / max(0.001, time.time() - started)
        for name in names:
            self.call("DELETE", f"/v1/apps/{APP}/devices/{name}")
        return rate

    # -- collecting --------------------------------------------------------------------------

    def collect_by_wake(self, expected, deadline, workers=8, pause=0.05):
        """Wakes every device through random nodes, acknowledging the highest seq received,
        until each has received all it expects (and acknowledged it) or `deadline` passes.
        Started before the first instant, it wakes every device again and again while the
        notifications fall due: what a node hands over early is received early."""
        devices = sorted(expected)

        def done(device):
            return expected[device] <= self.recorder.received_notifications(device) and self.recorder.all_acked(device)

        def worker(index):
            rng = self.rng_for(f"wake-{index}")
            mine = devices[index::workers]
            while time.time() < deadline:
                todo = [d for d in mine if not done(d)]
                if not todo:
                    return
                for device in todo:
                    if time.time() >= deadline:
                        return
                    if not wake(self.http, self.recorder, APP, device, rng.choice(self.nodes),
                                self.recorder.highest_seq(device)):
                        time.sleep(0.1)   # that node is down or stalled: do not spin on it
                time.sleep(pause)

        threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=max(1.0, deadline - time.time() + 15))
        return all(done(d) for d in devices)

    def wait_no_pending(self, reader, timeout=25.0):
        """Outcomes are stored just after the inbox rows, or, when a store call hung on a
        connection the fault killed, once that call's deadline (storage.callTimeoutMs, 10 s)
        passed and the outcome was stored again: give them up to two deadlines and a margin."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                rows = reader.rows(f"SELECT count(*) FROM delivery WHERE app_id = '{APP}' AND outcome = 'pending'")
                if rows and rows[0][0] == "0":
                    return
            except Exception:
                pass
            time.sleep(0.5)


# -- burst scenarios ---------------------------------------------------------------------------

def plan_burst(run, items, devices, spread_s):
    rng = run.rng
    plan = []
    for i in range(items):
        plan.append({"device": rng.choice(devices), "id": f"n{i:05d}",
                     "offset_ms": int(rng.uniform(0, spread_s * 1000)), "node": rng.choice(run.nodes)})
    return plan


def schedule_burst(run, plan, lead_after=3.0):
    """Schedules the plan so that its first instant comes about `lead_after` seconds after the
    last schedule is answered (the lead is estimated from a probe first). Returns (accepted,
    base in epoch seconds)."""
    rate = run.measure_schedule_rate()
    lead = len(plan) / rate * 1.15 + lead_after
    base = time.time() + lead
    for item in plan:
        item["at_ms"] = int(base * 1000) + item["offset_ms"]
    run.note(f"probe: {rate:.0f} schedules/s; scheduling {len(plan)} with the burst at +{lead:.1f} s")
    accepted, refused = run.schedule_all(plan)
    margin = base - time.time()
    run.note(f"scheduled {len(accepted)} ({len(refused)} refused); the burst starts in {margin:.1f} s")
    if refused:
        item, reply = refused[0]
        raise SetupError(f"{len(refused)} schedules refused (first: {item['id']}: {reply}); "
                         f"the burst would not be what was planned")
    return accepted, base


class SetupError(Exception):
    """The harness could not set the scenario up: no verdict on the server."""


def burst_scenario(run, fault, nodes_default=2, via_proxy=False):
    size = BURST[run.quick]
    if run.sqlite and fault.needs_postgres:
        raise SetupError(f"{run.scenario} injects its fault into PostgreSQL: it cannot run with --sqlite")
    node_env = fault.node_env(run) if hasattr(fault, "node_env") else None
    if via_proxy:
        run.start_postgres()
        run.start_nodes(run.node_count or nodes_default, via_proxy=True)
    else:
        run.start_store_and_nodes(run.node_count or nodes_default, node_env=node_env)
    run.put_app()
    devices = [f"d{i:03d}" for i in range(size["devices"])]
    run.put_devices(devices)
    plan = plan_burst(run, size["items"], devices, size["spread"])
    fault_plan = fault.plan(run)            # drawn before any thread runs: reproducible
    scheduled, base = schedule_burst(run, plan)
    end = base + size["spread"]

    fault_thread = threading.Thread(target=_run_fault, args=(run, fault, fault_plan, base, end), daemon=True)
    fault_thread.start()
    expected = {}
    for item in scheduled:
        expected.setdefault(item["device"], set()).add(item["id"])
    # The clients wake from just before the first instant, through the burst and the fault,
    # until everything arrived: so that an item handed over before its instant is seen early.
    sleep_until(base - CLIENT_LEAD_S)
    complete = run.collect_by_wake(expected, deadline=end + SETTLE_S)
    fault_thread.join(timeout=60)
    run.note(f"collecting ended ({'everything received' if complete else 'deadline'}); "
             f"{len(run.recorder.receipts)} receipts, request errors {run.recorder.errors}")
    if run.proxy:
        run.note("proxy: " + run.proxy.stats())
    return judge_deliveries(run, scheduled, run.store_reader(), lambda snapshot: fault.result(run, snapshot))


def _run_fault(run, fault, plan, base, end):
    try:
        fault.inject(run, plan, base, end)
    except Exception as error:   # a fault that could not be injected is reported, not hidden
        run.note(f"fault injection failed: {type(error).__name__}: {error}")
        run.fault_error = f"{type(error).__name__}: {error}"


def judge_deliveries(run, scheduled, reader, fault_stats=None):
    """The checker's verdicts on what the clients saw and the store holds, and whether the
    fault happened: `fault_stats(snapshot)` gives what checker.FAULT_REQUIRED tests."""
    run.wait_no_pending(reader)
    snapshot = checker.store_snapshot(reader, APP)
    counts, examples = checker.check_deliveries(scheduled, run.recorder.history, snapshot)
    counts["request_errors"] = sum(run.recorder.errors.values())
    reasons = checker.failing_reasons(counts) + run.failures
    if fault_stats is not None:
        stats = fault_stats(snapshot)
        run.note("fault: " + ", ".join(f"{k}={v}" for k, v in sorted(stats.items())))
        counts.update(stats)
        reasons += checker.fault_reasons(run.scenario, stats)
    if run.fault_error:
        # The harness could not do its part: the counts are shown, the verdict is ERROR.
        reasons.append("setup: fault injection failed: " + run.fault_error)
    return counts, examples, reasons + deaths(run, counts)


def deaths(run, counts):
    """Nodes that exited without being told to (a crash): a failure whatever else held."""
    died = run.cluster.check_deaths() if run.cluster else []
    counts["crashed"] = len(died)
    return [f"{name} died on its own ({describe_exit(code)})" for name, code in died]


def describe_exit(code):
    return f"signal {-code}" if code is not None and code < 0 else f"exit {code}"


class Fault:
    """A burst fault: `plan` draws its choices before any thread runs (reproducible), `inject`
    does it during the burst and counts what it did in `stats`, and `result` gives what
    checker.FAULT_REQUIRED tests, once the store's snapshot is in."""
    needs_postgres = False

    def __init__(self):
        self.stats = {}

    def plan(self, run):
        return {}

    def result(self, run, snapshot):
        return dict(self.stats)


class Terminate(Fault):
    """pg_terminate_backend of every Herald session every 100 ms during the burst."""
    needs_postgres = True

    def plan(self, run):
        return {"every": 0.1}

    def inject(self, run, plan, base, end):
        sleep_until(base)
        rounds = killed = 0
        tick = base
        while time.time() < end:
            killed += run.pg.terminate_backends()
            rounds += 1
            self.stats.update(terminate_rounds=rounds, backends_terminated=killed)
            tick += plan["every"]
            sleep_until(tick)
        run.note(f"terminate: {rounds} rounds, {killed} backends terminated")


class Silent(Fault):
    """1 s into the burst every proxied connection goes silent."""
    needs_postgres = True

    def plan(self, run):
        return {"at": 1.0}

    def inject(self, run, plan, base, end):
        sleep_until(base + plan["at"])
        silenced = run.proxy.go_silent()
        self.stats["connections_silenced"] = silenced
        run.note(f"silent: {silenced} connections went silent ({run.proxy.accepted} accepted so far)")


class Pause(Fault):
    """SIGSTOP one node for 2x its lease mid-burst, then SIGCONT; the node's state in /proc shows
    that it was stopped and runs again."""

    def plan(self, run):
        return {"at": run.rng.uniform(0.5, 1.5), "node": run.rng.randrange(len(run.nodes))}

    def inject(self, run, plan, base, end):
        node = run.nodes[plan["node"]]
        sleep_until(base + plan["at"])
        run.cluster.sigstop(node)
        self.stats["seen_stopped"] = int(wait_for_state(node, lambda state: state == "T"))
        run.note(f"pause: SIGSTOP {node.name} for {2 * LEASE_MS} ms")
        time.sleep(2 * LEASE_MS / 1000)
        run.cluster.sigcont(node)
        self.stats["seen_resumed"] = int(wait_for_state(node, lambda state: state not in ("T", "", "Z")))
        run.note(f"pause: SIGCONT {node.name}")


class Restart(Fault):
    """pg_ctl restart -m fast mid-burst; the postmaster's start time shows it happened."""
    needs_postgres = True

    def plan(self, run):
        return {"at": run.rng.uniform(1.0, 2.0)}

    def inject(self, run, plan, base, end):
        sleep_until(base + plan["at"])
        before = run.pg.postmaster_start_time()
        started = time.time()
        run.pg.restart()
        self.stats["pg_restarted"] = int(run.pg.postmaster_start_time() != before)
        run.note(f"restart: PostgreSQL restarted in {time.time() - started:.1f} s")


class Kill9(Fault):
    """kill -9 one node mid-burst, start it again (same name, port, data dir) 2 s later."""

    def plan(self, run):
        return {"at": run.rng.uniform(1.0, 2.0), "node": run.rng.randrange(len(run.nodes))}

    def inject(self, run, plan, base, end):
        node = run.nodes[plan["node"]]
        sleep_until(base + plan["at"])
        code = run.cluster.kill9(node)
        self.stats["killed_by_signal"] = -code if code is not None and code < 0 else 0
        run.note(f"kill9: SIGKILL {node.name} ({describe_exit(code)})")
        time.sleep(2.0)
        try:
            run.cluster.restart(node)
        except RuntimeError as error:   # it would not start again: the server's fault, not ours
            run.failures.append(f"{node.name} did not come back after kill -9: {str(error).splitlines()[0]}")
            return
        self.stats["restarted"] = 1
        run.note(f"kill9: {node.name} is back")


class Skew(Fault):
    """The nodes' clocks disagree: node-1 runs 2-4 s ahead, node-2 2-4 s behind (the
    HERALD_TEST_CLOCK_SKEW_MS test hook). Nothing may be handed over early by the real clock
    (the clients wake through node-1 too), and leases (on the database's clock) must not expire
    for a node that is alive. The fault happened if every node runs with its skew in its
    environment and node-1 claimed firings stamped with its clock (fired_at is the claiming
    node's now, never before the instant)."""
    needs_postgres = True
    AHEAD = "node-1"

    def node_env(self, run):
        ahead, behind = run.rng.randint(2000, 4000), run.rng.randint(2000, 4000)
        self.skews = {self.AHEAD: ahead, "node-2": -behind}
        return {name: {"HERALD_TEST_CLOCK_SKEW_MS": str(ms)} for name, ms in self.skews.items()}

    def inject(self, run, plan, base, end):
        run.note("skew: " + ", ".join(f"{name} {ms:+d} ms" for name, ms in self.skews.items()))

    def result(self, run, snapshot):
        skewed = sum(1 for node in run.nodes if node.name in self.skews
                     and process_env(node).get("HERALD_TEST_CLOCK_SKEW_MS") == str(self.skews[node.name]))
        stamps = sorted(r["fired_at"] - r["scheduled_for"] for r in snapshot["fire_log"]
                        if r["claimed_by"] == self.AHEAD)
        claims = {}
        for r in snapshot["fire_log"]:
            claims[r["claimed_by"] or "?"] = claims.get(r["claimed_by"] or "?", 0) + 1
        run.note("skew: claims per node " + ", ".join(f"{k} {v}" for k, v in sorted(claims.items())))
        return {"nodes": len(run.nodes), "skewed_nodes": skewed, "claimed_by_ahead": len(stamps),
                "ahead_skew_ms": self.skews[self.AHEAD],
                "ahead_stamp_median_ms": stamps[len(stamps) // 2] if stamps else 0}


def wait_for_state(node, wanted, timeout=2.0):
    """Polls the node's process state (the letter in /proc/<pid>/stat) until `wanted(state)`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if wanted(process_state(node.proc.pid)):
            return True
        time.sleep(0.01)
    return False


def process_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def process_env(node):
    """The environment the node's process runs with (what the skew hook reads)."""
    try:
        with open(f"/proc/{node.proc.pid}/environ", "rb") as f:
            pairs = f.read().split(b"\0")
    except OSError:
        return {}
    return dict(p.decode(errors="replace").split("=", 1) for p in pairs if b"=" in p)


# -- ackrace -----------------------------------------------------------------------------------

def ackrace(run, via_sse=False):
    size = ACKRACE[run.quick]
    run.start_store_and_nodes(run.node_count or 3)
    run.put_app()
    devices = [f"r{i:02d}" for i in range(size["devices"])]
    run.put_devices(devices)
    plan = []
    for device in devices:
        for j in range(size["per_device"]):
            plan.append({"device": device, "id": f"{device}-{j:03d}",
                         "offset_ms": int(run.rng.uniform(0, size["spread"] * 1000)), "node": run.rng.choice(run.nodes)})
    scheduled, base = schedule_burst(run, plan)
    deadline = base + size["spread"] + SETTLE_S
    expected = {}
    for item in scheduled:
        expected.setdefault(item["device"], set()).add(item["id"])
    loop = _sse_device_loop if via_sse else _wake_device_loop
    sleep_until(base - CLIENT_LEAD_S)
    threads = [threading.Thread(target=loop, args=(run, d, expected[d], deadline), daemon=True) for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, deadline - time.time() + 15))
    run.note(f"clients stopped; {len(run.recorder.receipts)} receipts, request errors {run.recorder.errors}")
    end = base + size["spread"]
    return judge_deliveries(run, scheduled, run.store_reader(), lambda snapshot: ack_race_stats(run, base, end))


def ack_race_stats(run, base, end):
    """The race happened if acks were confirmed while the burst fired, through several nodes
    (as many as there are, up to 2: --sqlite runs one)."""
    racing = [a for a in run.recorder.acks() if base <= a["at"] <= end]
    return {"acks_in_burst": len(racing), "ack_nodes_in_burst": len({a["node"] for a in racing}),
            "ack_nodes_needed": min(2, len(run.nodes))}


def _wake_device_loop(run, device, expected, deadline):
    """Wake through a random node with {"ack": highest seq so far}, again and again."""
    rng = run.rng_for(f"client-{device}")
    while time.time() < deadline:
        if expected <= run.recorder.received_notifications(device) and run.recorder.all_acked(device):
            return
        if not wake(run.http, run.recorder, APP, device, rng.choice(run.nodes), run.recorder.highest_seq(device)):
            time.sleep(0.1)
        time.sleep(rng.uniform(0.01, 0.05))


def _sse_device_loop(run, device, expected, deadline):
    """Connect the stream (foreground: live delivery) to a random node with Last-Event-ID, read
    a random while, drop it, reconnect elsewhere."""
    rng = run.rng_for(f"client-{device}")
    last_id = None
    while time.time() < deadline:
        if expected <= run.recorder.received_notifications(device) and run.recorder.all_acked(device):
            return
        node = rng.choice(run.nodes)
        stream = SSEStream(node.port, stream_path(APP, device, foreground=True), last_event_id=last_id)
        try:
            status = stream.open()
            if status != 200:
                run.recorder.error(f"sse: HTTP {status}" if status else "sse: no answer")
                time.sleep(0.1)
                continue
            run.recorder.confirm_ack(device, last_id, node.name, "sse")
            blocks = stream.read_timed(until=min(deadline, time.time() + rng.uniform(0.1, 0.8)))
            seen = record_stream_blocks(run.recorder, device, node, blocks)
            if seen is not None:
                last_id = seen
        finally:
            stream.close()


# -- slow feedback -----------------------------------------------------------------------------

def slowfeedback(run, mode):
    events = FEEDBACK_EVENTS[run.quick]
    receiver = FeedbackReceiver(FEEDBACK_SECRET, mode=mode, delay=7.0).start()
    run.res.on_cleanup(receiver.close)
    run.note(f"feedback receiver at {receiver.url} ({mode})")
    run.start_store_and_nodes(run.node_count or 2, extra_config={
        "feedback.urls": receiver.url, "feedback.secret": FEEDBACK_SECRET,
        "feedback.events": "token.invalid,delivery.failed,notification.evicted"})
    run.put_app({"overflow": "keepSoonest"})
    run.put_devices(["fb"])
    now_ms = int(time.time() * 1000)
    # 128 far in the future fill the device; each sooner one then evicts the latest of them.
    fill = [{"device": "fb", "id": f"fill-{i:03d}", "at_ms": now_ms + 86_400_000 + i * 60_000,
             "node": run.rng.choice(run.nodes)} for i in range(128)]
    accepted, refused = run.schedule_all(fill)
    if refused:
        raise SetupError(f"{len(refused)} of the 128 fillers refused: {refused[0][1]}")
    evicted = []
    for i in range(events):
        item = {"device": "fb", "id": f"soon-{i:03d}", "at_ms": now_ms + 3_600_000 + i * 1000,
                "node": run.rng.choice(run.nodes)}
        reply = run.schedule(item)
        if reply is None or reply.status != 201:
            raise SetupError(f"schedule {item['id']}: {reply}")
        evicted += reply.json.get("evicted", [])
    run.note(f"{len(evicted)} notifications evicted: as many notification.evicted events expected")
    # Wait for each to arrive once, then long enough for any duplicate to show: a lease
    # running out twice over, plus the receiver's delay.
    deadline = time.time() + 120
    while time.time() < deadline:
        got = {e["notification_id"] for e in receiver.entries() if e["answered"] < 300}
        if set(evicted) <= got:
            break
        time.sleep(0.5)
    run.note("first deliveries in; watching for duplicates")
    settle_until = time.time() + 2 * LEASE_MS / 1000 + receiver.delay + 3
    while time.time() < settle_until or (receiver.in_flight() > 0 and time.time() < settle_until + 15):
        time.sleep(0.5)
    entries = receiver.entries()
    counts, examples = checker.check_feedback(evicted, entries)
    outbox = run.store_reader().rows("SELECT state, count(*) FROM outbox GROUP BY state")
    for state, n in outbox:
        counts[f"outbox_{state}"] = int(n)
    reasons = [f"{k}={counts.get(k, 0)}" for k in ("missing", "twice", "bad_signature", "unexpected") if counts.get(k, 0)]
    if len(evicted) != events:
        reasons.append(f"evicted={len(evicted)} (expected {events})")
    # The fault: answers that took the receiver's delay (and, in fail_first, 500s first).
    stats = {"slow_answers": sum(1 for e in entries if e["finished"] - e["started"] >= receiver.delay),
             "answered_500": sum(1 for e in entries if e["answered"] == 500)}
    counts.update(stats)
    reasons += checker.fault_reasons(run.scenario, stats)
    return counts, examples, reasons + deaths(run, counts)


# -- SIGTERM -----------------------------------------------------------------------------------

def sigterm(run):
    run.start_nodes(1, sqlite=True)
    node = run.nodes[0]
    run.put_app()
    devices = ["s1", "s2", "s3"]
    run.put_devices(devices)
    # Pending schedules that fall due after the restart.
    first = time.time() + 15
    plan = [{"device": d, "id": f"{d}-{j:02d}", "at_ms": int((first + run.rng.uniform(0, 2)) * 1000), "node": node}
            for d in devices for j in range(10)]
    scheduled, refused = run.schedule_all(plan)
    if refused:
        raise SetupError(f"{len(refused)} schedules refused: {refused[0][1]}")

    streams = []
    for d in devices:
        stream = SSEStream(node.port, stream_path(APP, d, foreground=False))
        if stream.open() != 200:
            raise SetupError(f"stream for {d}: HTTP {stream.status}")
        stream.read(until=time.time() + 1.0)   # the ": connected" comment
        streams.append(stream)
    run.res.on_cleanup(lambda: [s.close() for s in streams])
    run.note("3 streams open; SIGTERM")

    bound = DRAIN_MS / 1000 + 5
    readers = [threading.Thread(target=s.read, args=(time.time() + bound + 2,), daemon=True) for s in streams]
    for t in readers:
        t.start()
    started = time.time()
    run.cluster.sigterm(node)
    fault = {"sigterm_sent": 1, "exited": 0, "restarted": 0}
    code = run.cluster.wait_exit(node, timeout=bound)
    fault["exited"] = int(code is not None)
    took = time.time() - started
    for t in readers:
        t.join(timeout=bound + 5)
    counts = {"exit_code": code if code is not None else "none", "exit_s": round(took, 2)}
    reasons = []
    if code is None:
        reasons.append(f"still running {bound:.0f} s after SIGTERM (drainMs {DRAIN_MS} + 5 s): killed")
        run.cluster.kill9(node)
    elif code != 0:
        reasons.append(f"exit code {code}")
    ended = with_retry = 0
    examples = {}
    for d, s in zip(devices, streams):
        last = (s.blocks[-1] if s.blocks else "") + ("\n" + s.trailing if s.trailing else "")
        has_retry = any(line.startswith("retry:") for line in last.split("\n"))
        ended += s.ended
        with_retry += s.ended and has_retry
        summary = f"{d}: {'ended' if s.ended else 'still open'}{' (reset)' if s.reset else ''}, last {last[-120:]!r}"
        examples.setdefault("streams", []).append(summary)
        run.note("stream " + summary)
        s.close()
    counts["streams_ended"] = ended
    counts["streams_retry"] = with_retry
    if ended < len(streams):
        reasons.append(f"streams_ended={ended}/{len(streams)}")
    if with_retry < len(streams):
        reasons.append(f"streams_retry={with_retry}/{len(streams)}")

    try:
        run.cluster.restart(node)
        fault["restarted"] = 1
    except RuntimeError as error:
        reasons.append(f"no restart after SIGTERM: {str(error).splitlines()[0]}")
    counts.update(fault)
    reasons += checker.fault_reasons(run.scenario, fault)
    if not fault["restarted"]:
        return counts, examples, reasons
    run.note("restarted; collecting the pending schedules")
    expected = {d: {i["id"] for i in scheduled if i["device"] == d} for d in devices}
    last_at = max(i["at_ms"] for i in scheduled) / 1000
    run.collect_by_wake(expected, deadline=max(time.time(), last_at) + SETTLE_S, workers=3)
    delivery_counts, delivery_examples, delivery_reasons = judge_deliveries(
        run, scheduled, checker.SQLiteStoreReader(f"{node.data_dir}/herald.sqlite"))
    counts.update(delivery_counts)
    examples.update(delivery_examples)
    return counts, examples, reasons + delivery_reasons


# -- live events across nodes ------------------------------------------------------------------

LIVE = {False: dict(devices=10, keys=40, spread=6.0), True: dict(devices=5, keys=20, spread=4.0)}


def liveevents(run):
    """Every device holds a live stream (foreground) on a random node, dropped after a random
    while and reconnected elsewhere with Last-Event-ID; `settings` events, one per key, are
    reported through random nodes while every Herald session is terminated every 150 ms (the
    relay listeners keep reconnecting, so word between nodes is lost). Each accepted event must
    reach the device: live, or in the backlog a later stream is handed."""
    size = LIVE[run.quick]
    run.start_store_and_nodes(run.node_count or 2)
    run.put_app()
    devices = [f"e{i:02d}" for i in range(size["devices"])]
    run.put_devices(devices)
    plan = {d: sorted(run.rng.uniform(0, size["spread"]) for _ in range(size["keys"])) for d in devices}
    lock = threading.Lock()
    received = {d: {} for d in devices}      # key -> values seen, live or in a backlog
    accepted = {d: {} for d in devices}      # key -> value the server accepted
    stop = threading.Event()
    dropped = []                              # streams the clients dropped to reconnect elsewhere

    def watch(device):
        rng = run.rng_for(f"stream-{device}")
        last_id = None
        while not stop.is_set():
            node = rng.choice(run.nodes)
            stream = SSEStream(node.port, stream_path(APP, device, foreground=True), last_event_id=last_id)
            try:
                if stream.open() != 200:
                    time.sleep(0.1)
                    continue
                blocks = stream.read(until=time.time() + rng.uniform(0.5, 3.0))
                if not stop.is_set():
                    dropped.append(device)
                for block in blocks:
                    fields = parse_block(block)
                    if "id" in fields:
                        last_id = fields["id"]
                    if fields.get("event") != "system" or "data" not in fields:
                        continue
                    event = json.loads(fields["data"])
                    if event.get("kind") == "settings":
                        with lock:
                            received[device].setdefault(event.get("key"), set()).add(event.get("value"))
            finally:
                stream.close()

    def report(device):
        rng = run.rng_for(f"report-{device}")
        start = time.time()
        for index, offset in enumerate(plan[device]):
            sleep_until(start + offset)
            key, body = f"k{index:03d}", {"events": [{"kind": "settings", "key": f"k{index:03d}", "value": index}]}
            for _ in range(20):   # retried through any node until answered: one key, one value
                try:
                    reply = run.http.request("POST", rng.choice(run.nodes).port,
                                             f"/v1/apps/{APP}/devices/{device}/events", body)
                except HTTPFailure:
                    run.recorder.error("events: no answer")
                    continue
                if reply.status == 200:
                    with lock:
                        accepted[device][key] = index
                    break
                run.recorder.error(f"events: HTTP {reply.status}")
                if reply.status < 500:
                    break
                time.sleep(0.05)

    watchers = [threading.Thread(target=watch, args=(d,), daemon=True) for d in devices]
    for t in watchers:
        t.start()
    time.sleep(1.0)                          # the streams are open before the first report
    base = time.time()
    end = base + size["spread"]
    terminate = Terminate()
    fault_thread = threading.Thread(target=_run_fault, args=(run, terminate, {"every": 0.15}, base, end), daemon=True)
    fault_thread.start()
    reporters = [threading.Thread(target=report, args=(d,), daemon=True) for d in devices]
    for t in reporters:
        t.start()
    for t in reporters:
        t.join(timeout=size["spread"] + 120)
    fault_thread.join(timeout=60)

    def missing():
        with lock:
            return [(d, k, v) for d in devices for k, v in accepted[d].items() if v not in received[d].get(k, set())]

    deadline = time.time() + SETTLE_S
    while missing() and time.time() < deadline:
        time.sleep(0.5)
    stop.set()
    for t in watchers:
        t.join(timeout=5)
    lost = missing()
    reported = size["devices"] * size["keys"]
    with lock:
        got = sum(1 for d in devices for k, v in accepted[d].items() if v in received[d].get(k, set()))
        counts = {"reported": reported, "accepted": sum(len(a) for a in accepted.values()), "received": got,
                  "missing": len(lost), "request_errors": dict(run.recorder.errors)}
    run.note(f"live events: {counts}")
    examples = {"missing": [f"{d} {k}={v}" for d, k, v in lost[:10]]} if lost else {}
    reasons = [f"missing={len(lost)}"] if lost else []
    if counts["accepted"] < reported:
        reasons.append(f"accepted={counts['accepted']}/{reported}: reports went unanswered")
    stats = {"backends_terminated": terminate.stats.get("backends_terminated", 0), "streams_dropped": len(dropped)}
    counts.update(stats)
    reasons += checker.fault_reasons(run.scenario, stats)
    if run.fault_error:
        reasons.append("setup: fault injection failed: " + run.fault_error)
    return counts, examples, reasons + deaths(run, counts)


# -- the table run.py reads --------------------------------------------------------------------

# name -> (function, default nodes, hard timeout in seconds, what it does)
SCENARIOS = {
    "terminate": (lambda run: burst_scenario(run, Terminate()), 2, 300,
                  "pg_terminate_backend of every Herald session every 100 ms during the burst"),
    "silent": (lambda run: burst_scenario(run, Silent(), via_proxy=True), 2, 300,
               "nodes reach PostgreSQL through the proxy; 1 s in, every open connection goes silent"),
    "pause": (lambda run: burst_scenario(run, Pause()), 2, 300,
              "SIGSTOP one node for 2x its lease mid-burst, then SIGCONT"),
    "restart": (lambda run: burst_scenario(run, Restart()), 2, 300,
                "pg_ctl restart -m fast mid-burst"),
    "kill9": (lambda run: burst_scenario(run, Kill9()), 2, 300,
              "kill -9 one node mid-burst, start it again 2 s later"),
    "skew": (lambda run: burst_scenario(run, Skew()), 2, 300,
             "node-1's clock 2-4 s ahead, node-2's 2-4 s behind; nothing fires early, nothing is lost"),
    "ackrace": (lambda run: ackrace(run, via_sse=False), 3, 240,
                "every device wakes through random nodes acking its highest seq while a burst fires"),
    "ackrace_sse": (lambda run: ackrace(run, via_sse=True), 3, 240,
                    "every device reconnects its stream to random nodes with Last-Event-ID while a burst fires"),
    "slowfeedback": (lambda run: slowfeedback(run, "slow"), 2, 240,
                     "feedback receiver answering 200 after 7 s; each event must arrive once"),
    "slowfeedback_retry": (lambda run: slowfeedback(run, "fail_first"), 2, 240,
                           "feedback receiver answering 500 first, then 200 after 7 s"),
    "liveevents": (liveevents, 2, 240,
                   "devices stream on random nodes while settings events are reported through random nodes "
                   "and every session is terminated every 150 ms; each accepted event must reach its device"),
    "sigterm": (sigterm, 1, 180,
                "SQLite node with 3 open streams gets SIGTERM; then pending schedules must still fire"),
}

# What a line shows first, per kind of scenario.
HEADLINE = {
    "deliveries": ["scheduled", "received", "missing", "twice", "duplicate", "acked_unseen", "pending", "early",
                   "crashed"],
    "feedback": ["events", "delivered", "missing", "twice", "bad_signature", "requests", "crashed"],
    "liveevents": ["reported", "accepted", "received", "missing", "crashed"],
    "sigterm": ["exit_code", "exit_s", "streams_ended", "streams_retry", "scheduled", "received", "missing",
                "twice", "duplicate", "acked_unseen", "pending", "early", "crashed"],
}


def headline(name):
    if name.startswith("slowfeedback"):
        return HEADLINE["feedback"]
    if name in ("sigterm", "liveevents"):
        return HEADLINE[name]
    return HEADLINE["deliveries"]
