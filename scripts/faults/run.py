#!/usr/bin/env python3
"""Fault-injection harness for Herald: real `herald serve` nodes on a real PostgreSQL (or SQLite),
faults injected while notifications fire, verdicts from what token-less clients received and
what the store holds at the end. Python 3 standard library only.

Usage (from the repository root):

    python3 scripts/faults/run.py --scenario NAME --seeds 1-20 [--nodes N] [--quick] [--keep] [-v]
    python3 scripts/faults/run.py --scenario all --seeds 1-3 --quick
    python3 scripts/faults/run.py --list

    --scenario  a name below, several comma-separated, or `all`
    --seeds     1-20, 7, 1,4,9 or 1-3,8: each seed is one run; random.Random(seed) draws every
                choice (instants, devices, nodes, fault timing), so a failing seed can be re-run
    --nodes     herald nodes (default per scenario; sigterm always runs one node on SQLite)
    --quick     smaller bursts (300 one-shots on 20 devices; 10 x 40 over 3 s for ackrace; 10 feedback events)
    --sqlite    one node on SQLite instead of nodes on PostgreSQL (pause, kill9, ackrace,
                ackrace_sse, slowfeedback*; the PostgreSQL faults refuse it)
    --keep      keep each run's work dir (configs, node logs, PostgreSQL log, receipts.tsv: the
                clients' history)
    --timeout   hard timeout of each run in seconds (default per scenario, see --list)
    -v          stream each run's progress instead of only its result line

The binary is $HERALD_BIN (default .build/debug/herald). It is copied to a temp dir at the start,
so a rebuild while the harness runs does not change what is tested.

Scenarios (burst = one-shots on token-less devices, so every firing goes to the device inbox):
    terminate          2 nodes; 2,000 one-shots on 100 devices due over 4 s from ~3 s after they
                       are scheduled; pg_terminate_backend of every Herald session every 100 ms
                       during the burst
    silent             the same burst, the nodes reaching PostgreSQL through a TCP proxy; 1 s in,
                       every connection open then goes silent (no data, no FIN, no RST)
    pause              the same burst; SIGSTOP one node for 2x its lease (lease 3 s), then SIGCONT
    restart            the same burst; pg_ctl restart -m fast mid-burst
    kill9              the same burst; kill -9 one node mid-burst, started again 2 s later
    skew               the same burst; node-1's clock 2-4 s ahead, node-2's 2-4 s behind (the
                       HERALD_TEST_CLOCK_SKEW_MS test hook): nothing early, nothing lost
    ackrace            3 nodes; 20 devices x 100 one-shots due within 1 s; each device's client
                       wakes through random nodes with {"ack": highest seq received}, over and over
    ackrace_sse        the same, the clients on SSE streams (foreground) reconnecting to random
                       nodes with Last-Event-ID
    slowfeedback       2 nodes; 20 notification.evicted feedback events (keepSoonest overflow); the
                       receiver answers 200 after 7 s
    slowfeedback_retry the same; the receiver answers each event's first attempt 500, then 200
                       after 7 s
    liveevents         2 nodes; 10 devices streaming (foreground) on random nodes, each stream
                       dropped after 0.5-3 s and reconnected with Last-Event-ID; 40 settings
                       events a device (one per key) reported over 6 s through random nodes while
                       every Herald session is terminated every 150 ms; each accepted event must
                       reach its device, live or in a later backlog (missing = never did)
    sigterm            1 node on SQLite with 3 SSE streams open gets SIGTERM; then it is started
                       again and its pending schedules must fire

Nodes run with node.leaseMs 3000, node.sweepMs 500 and shutdown.drainMs 3000 (as the project's
cluster end-to-end tests), rate limits off. Clients wake every device through random nodes,
acknowledging the highest seq received, from 0.5 s before the first instant, through the burst
and the fault, until everything arrived and was acknowledged or 30 s after the last instant
(ackrace: one client per device from 0.5 s before the first instant; sigterm: from the restart).
checker.py judges the clients' history (each item received, with when its answer or SSE frame
arrived, and each acknowledgement answered 2xx) and the store at the end. Verdicts:
    missing       scheduled, never received (and not acked_unseen); the example says why, from
                  the store: never fired, firing still pending, still in the inbox, or its outcome
    twice         received again after an acknowledgement covering it was answered
    duplicate     handed over more than once, ack or no ack: a second fire-log row (delivery) for
                  one (occurrence, device), one notification fired as two occurrences, or one
                  occurrence under two hand-over ids (seq) in the inbox (the fire-log rows with
                  an inbox_seq, acknowledged ones included) or in what its client received
    acked_unseen  handed over (inbox or stream), gone from the inbox, never received: an ack
                  removed it unseen
    pending       fire-log rows still 'pending' at the end
    early         received more than 3 ms before its instant, by the machine's clock (the one
                  clock the harness, PostgreSQL and the nodes share; a skewed node only adds its
                  skew inside Herald). The 3 ms: a claim takes what is due within the 2 ms batch
                  window (scheduler.batchWindowMs, left at its default), on PostgreSQL's clock
                  rounded to the millisecond
    crashed       nodes that exited without being told to (a crash report is in the log tail)
A burst, ackrace or sigterm run passes with all seven at 0 (sigterm also needs exit code 0 within
drainMs + 5 s and every stream ended with an SSE `retry:` line last); a slowfeedback run passes
when each event was answered 2xx exactly once, correctly signed, and no node crashed; liveevents
when every accepted event reached its device and no node crashed.

Every scenario also requires its fault to have happened, and fails with "fault not seen: ..."
otherwise (checker.FAULT_REQUIRED; the numbers are on the result line):
    terminate          backends_terminated > 0
    silent             connections_silenced > 0
    pause              the node seen in state T (/proc/<pid>/stat) after SIGSTOP, and not after
                       SIGCONT
    restart            pg_postmaster_start_time() changed across pg_ctl restart
    kill9              the node's exit status was SIGKILL, and it answered /healthz again
    skew               every node's environment holds its HERALD_TEST_CLOCK_SKEW_MS; node-1 (ahead)
                       claimed firings (delivery.claimed_by), and their fired_at (the claiming
                       node's clock) is a median of at least half its skew after their instant
    ackrace(_sse)      acks (wake acks, or streams opened with Last-Event-ID) answered during the
                       burst, through at least 2 nodes (1 with --sqlite)
    liveevents         backends_terminated > 0 and streams_dropped > 0 (dropped and reconnected)
    slowfeedback       slow_answers > 0 (requests answered after the receiver's delay)
    slowfeedback_retry answered_500 > 0 and slow_answers > 0
    sigterm            SIGTERM sent, the node exited, and it started again
ERROR means the harness could not do its part (setup, fault injection raised): no verdict on the
server, counted as failed. Everything after `|` on a result line is information: the fault's
numbers above, redelivered_unacked (received again before being acknowledged, under the same
seq, which at-least-once hand-over allows), below_watermark (an item whose seq is at or below an
ack already answered: committed out of order), first_lag_min_ms / first_lag_median_ms (how soon
after its instant each item was first received: small values show the clients were asking while
items fell due), claimed_early (fired_at < scheduled_for in the fire log: the batch window, or
a node whose clock runs behind), inbox_left, request_errors (client requests without a 2xx),
unclean_stop (nodes that did not exit 0 within drainMs + 5 s of the SIGTERM that ends every run),
twice_overlapping (a feedback event sent again while its first request was still open: a second
sender, not a retry after a timeout).

The checker's self-test (made-up histories, no servers, under a second):
    python3 -m unittest discover -s scripts/faults -p 'test_*.py'

Each run has a hard timeout; every process it started is killed and its temp dir removed at the
end, on failure, on timeout and on Ctrl-C. Output: the binary's path and hash on stderr, then on
stdout one line per (scenario, seed), the reasons, examples, timeline and log tails under a
failing one, and `N passed, N failed`; the exit status is 1 if any failed.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True   # no __pycache__ in the source tree

import procs       # noqa: E402
import scenarios   # noqa: E402

DEFAULT_BIN = os.path.join(os.path.dirname(os.path.dirname(HERE)), ".build", "debug", "herald")


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            low, high = part.split("-", 1)
            seeds.extend(range(int(low), int(high) + 1))
        elif part:
            seeds.append(int(part))
    return seeds


def parse_scenarios(text):
    if text == "all":
        return list(scenarios.SCENARIOS)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in scenarios.SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown scenario(s): {', '.join(unknown)}; known: {', '.join(scenarios.SCENARIOS)}")
    return names


# -- the child: one (scenario, seed) in a process of its own -----------------------------------

class Interrupted(Exception):
    pass


def _interrupt(signum, frame):
    raise Interrupted(f"signal {signum}")


def child_main(args):
    """Runs one scenario and writes result.json; always cleans up what it started."""
    # Ctrl-C reaches us with the parent (same process group); installed explicitly, since a
    # shell starting us in the background may have left SIGINT ignored.
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    res = procs.Resources(args.work_dir)
    started = time.time()
    result = {"verdict": "ERROR", "counts": {}, "examples": {}, "reasons": []}
    run = scenarios.Run(args.scenario, args.seed, args.nodes, args.quick, args.binary, args.work_dir, res,
                        sqlite=args.sqlite)
    try:
        counts, examples, reasons = scenarios.SCENARIOS[args.scenario][0](run)
        run.finish(counts, examples)
        verdict = "ERROR" if any(r.startswith("setup:") for r in reasons) else "FAIL" if reasons else "PASS"
        result.update(counts=counts, examples=examples, reasons=reasons, verdict=verdict)
    except scenarios.SetupError as error:
        result["reasons"] = [f"setup: {error}"]
    except (Interrupted, KeyboardInterrupt) as error:
        result["reasons"] = [f"interrupted ({error or 'Ctrl-C'})"]
    except Exception:
        result["reasons"] = ["harness error:\n" + traceback.format_exc()]
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)   # clean up without being interrupted again
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        res.close()
    result["timeline"] = run.timeline
    result["seconds"] = round(time.time() - started, 1)
    write_receipts(run, os.path.join(args.work_dir, "receipts.tsv"))
    with open(os.path.join(args.work_dir, "result.json"), "w") as f:
        json.dump(result, f)
    return 0


def write_receipts(run, path):
    """The clients' history (every item received, every confirmed ack), for a kept work dir (--keep)."""
    with open(path, "w") as f:
        f.write("event\tdevice\tnotification\toccurrence\tseq_or_ack\ttime\tnode\tvia\n")
        for e in run.recorder.history:
            if e["type"] == "receive":
                f.write(f"receive\t{e['device']}\t{e['notification']}\t{e['occurrence']}\t{e['seq']}\t{e['at']:.3f}\t"
                        f"{e['node']}\t{e['via']}\n")
            else:
                f.write(f"ack\t{e['device']}\t\t\t{e['upto']}\t{e['at']:.3f}\t{e['node']}\t{e['via']}\n")


# -- the parent: runs children, enforces the hard timeout, prints verdicts ---------------------

def tail(path, lines):
    try:
        with open(path, errors="replace") as f:
            return f.readlines()[-lines:]
    except OSError:
        return []


def crash_excerpt(lines):
    """For a log ending in a Swift crash report: the log lines before the report, then the
    crashed thread's top frames (the registers and images that follow tell nothing here)."""
    start = next((i for i, l in enumerate(lines) if l.startswith("*** Signal") or l.startswith("*** Program crashed")), None)
    if start is None:
        return None
    out = lines[max(0, start - 15):start]
    crashed = next((i for i in range(start, len(lines))
                    if lines[i].startswith("Thread ") and lines[i].rstrip().endswith("crashed:")), None)
    if crashed is not None:
        out += ["...\n"] + lines[crashed:crashed + 12]
    # A node restarted after a crash has more log after the report.
    restart = next((i for i in range(start, len(lines)) if lines[i].startswith("=== harness: starting")), None)
    if restart is not None:
        out += ["...\n"] + lines[restart:][-10:]
    return out


def log_tails(work_dir, lines=25):
    out = []
    names = sorted(n for n in os.listdir(work_dir) if n.endswith(".log") and n != "harness.log")
    for name in names:
        text = tail(os.path.join(work_dir, name), 100000)
        excerpt = crash_excerpt(text)
        if excerpt is not None:
            out.append(f"    --- {name} (it CRASHED, see the last harness line before the report; abridged)")
        else:
            excerpt = text[-lines:]
            out.append(f"    --- {name} (last {lines} lines)")
        out.extend("    " + l.rstrip("\n")[:300] for l in excerpt)
    pg_log = os.path.join(work_dir, "pg", "server.log")
    if os.path.exists(pg_log):
        out.append("    --- PostgreSQL server.log (last 10 lines)")
        out.extend("    " + l.rstrip("\n")[:300] for l in tail(pg_log, 10))
    return out


def format_line(name, seed, nodes, result):
    counts = result.get("counts", {})
    shown = scenarios.headline(name)
    main = " ".join(f"{k}={counts[k]}" for k in shown if k in counts)
    info = " ".join(f"{k}={v}" for k, v in sorted(counts.items()) if k not in shown and v not in (0, "0"))
    text = f"{name:<18} seed={seed:<3} nodes={nodes} {main}"
    if info:
        text += f" | {info}"
    return f"{text}  {result['verdict']} ({result.get('seconds', '?')}s)"


def report(args, name, seed, nodes, result, work_dir, log_path):
    """The result line, and under a failure what explains it."""
    print(format_line(name, seed, nodes, result), flush=True)
    if result["verdict"] != "PASS":
        for reason in result.get("reasons", []):
            print("    " + reason.replace("\n", "\n    "))
        for bucket, items in sorted(result.get("examples", {}).items()):
            print(f"    {bucket}: " + "; ".join(items))
        timeline = result.get("timeline") or [l.rstrip("\n") for l in tail(log_path, 40)]
        if timeline:
            print("    --- timeline")
            print("\n".join("    " + l for l in timeline))
        tails = log_tails(work_dir)
        if tails:
            print("\n".join(tails))
        print(f"    (reproduce: python3 scripts/faults/run.py --scenario {name} --seeds {seed} --nodes {nodes}"
              f"{' --quick' if args.quick else ''}{' --sqlite' if args.sqlite else ''})", flush=True)


def run_one(args, name, seed, binary):
    fn, default_nodes, budget, _ = scenarios.SCENARIOS[name]
    budget = args.timeout or budget
    nodes = 1 if name == "sigterm" or args.sqlite else (args.nodes or default_nodes)
    work_dir = tempfile.mkdtemp(prefix=f"herald-faults-{name}-{seed}-")
    os.chmod(work_dir, 0o755)   # PostgreSQL runs as `postgres` below it
    argv = [sys.executable, os.path.abspath(__file__), "--child", "--scenario", name, "--seed", str(seed),
            "--nodes", str(nodes), "--binary", binary, "--work-dir", work_dir]
    argv += (["--quick"] if args.quick else []) + (["--sqlite"] if args.sqlite else [])
    log_path = os.path.join(work_dir, "harness.log")
    result = None
    with open(log_path, "wb") as log:
        out = None if args.verbose else log
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            child.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            result = {"verdict": "FAIL", "reasons": [f"hard timeout: the run took over {budget} s"], "counts": {},
                      "seconds": budget}
            child.send_signal(signal.SIGTERM)
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        except KeyboardInterrupt:
            # The child got the same Ctrl-C and cleans up; give it the time to.
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            procs.emergency_cleanup(work_dir)
            if not args.keep:
                procs.remove_tree(work_dir)
            raise
    procs.emergency_cleanup(work_dir)   # no-op unless the child died before cleaning up
    if result is None:
        try:
            with open(os.path.join(work_dir, "result.json")) as f:
                result = json.load(f)
        except (OSError, ValueError):
            result = {"verdict": "ERROR", "reasons": [f"the run ended ({child.returncode}) without a result"],
                      "counts": {}}
    try:
        report(args, name, seed, nodes, result, work_dir, log_path)
    finally:
        if args.keep:
            print(f"    work dir kept: {work_dir}")
        else:
            procs.remove_tree(work_dir)
    return result["verdict"] == "PASS"


def copy_binary(path):
    """A private copy: the build may replace the original while we run."""
    if not os.path.isfile(path):
        raise SystemExit(f"no herald binary at {path} (set HERALD_BIN, or wait for the build)")
    bin_dir = tempfile.mkdtemp(prefix="herald-faults-bin-")
    copy = os.path.join(bin_dir, "herald")
    shutil.copy2(path, copy)
    os.chmod(copy, 0o755)
    os.chmod(bin_dir, 0o755)
    digest = hashlib.sha256()
    with open(copy, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    built = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(path)))
    # On stderr: stdout is one line per run and the closing count.
    print(f"herald: {path} (modified {built}, sha256 {digest.hexdigest()[:12]})", file=sys.stderr, flush=True)
    return bin_dir, copy


def main():
    parser = argparse.ArgumentParser(description="Herald fault-injection harness (see the module docstring).")
    parser.add_argument("--scenario")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--nodes", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--timeout", type=float, default=0)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--list", action="store_true")
    # Internal: one run in a child process.
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--binary", help=argparse.SUPPRESS)
    parser.add_argument("--work-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        return child_main(args)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.list:
        for name, (_, nodes, budget, what) in scenarios.SCENARIOS.items():
            print(f"{name:<18} {nodes} node(s), hard timeout {budget} s: {what}")
        return 0
    if not args.scenario:
        parser.error("--scenario is required (or --list)")
    names = parse_scenarios(args.scenario)
    seeds = parse_seeds(args.seeds)
    bin_dir, binary = copy_binary(os.environ.get("HERALD_BIN", DEFAULT_BIN))
    passed = failed = 0
    try:
        for name in names:
            for seed in seeds:
                if run_one(args, name, seed, binary):
                    passed += 1
                else:
                    failed += 1
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        failed += 1
    finally:
        shutil.rmtree(bin_dir, ignore_errors=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
