"""Every process and directory one scenario run starts, so that all of them go away at the end.

A run records what it starts in `resources.json` inside its work dir as it goes. If the run's
own clean-up cannot happen (it was killed after its hard timeout), the parent reads that file
and cleans up with `emergency_cleanup`, touching only processes whose command line still names
what was started (a pid may have been reused since).
"""

import json
import os
import shutil
import signal
import subprocess
import threading
import time

STATE_FILE = "resources.json"


class Resources:
    """Processes (by pid, with what they run) and PostgreSQL data dirs owned by one run."""

    def __init__(self, work_dir):
        self.work_dir = work_dir
        self._lock = threading.Lock()
        self._procs = []          # subprocess.Popen, in start order
        self._postgres = []       # {"pg_ctl": [...argv prefix...], "data": dir}
        self._cleanups = []       # callables, run last-in first-out
        self._save()

    # -- recording ---------------------------------------------------------------------------

    def spawn(self, argv, log_path, env=None, cwd=None):
        """Starts `argv` in a session of its own (Ctrl-C in the terminal reaches only us, and we
        stop it ourselves), stdout and stderr appended to `log_path`."""
        log = open(log_path, "ab", buffering=0)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    env=env, cwd=cwd, start_new_session=True)
        finally:
            log.close()
        with self._lock:
            self._procs.append(proc)
            self._save()
        return proc

    def forget(self, proc):
        """`proc` has exited and was reaped: never signal its pid again."""
        with self._lock:
            if proc in self._procs:
                self._procs.remove(proc)
                self._save()

    def track_postgres(self, pg_ctl_argv, data_dir):
        with self._lock:
            self._postgres.append({"pg_ctl": pg_ctl_argv, "data": data_dir})
            self._save()

    def untrack_postgres(self, data_dir):
        with self._lock:
            self._postgres = [p for p in self._postgres if p["data"] != data_dir]
            self._save()

    def on_cleanup(self, fn):
        with self._lock:
            self._cleanups.append(fn)

    def _save(self):
        state = {
            "procs": [{"pid": p.pid, "exe": p.args[0]} for p in self._procs],
            "postgres": self._postgres,
        }
        tmp = os.path.join(self.work_dir, STATE_FILE + ".tmp")
        with open(tmp, "w") as f:
            json.dump(state, f)
        os.replace(tmp, os.path.join(self.work_dir, STATE_FILE))

    # -- clean-up ----------------------------------------------------------------------------

    def close(self):
        """Runs the clean-up callbacks, kills every process still running (SIGCONT first: a
        stopped process does not die of SIGTERM), and stops PostgreSQL."""
        with self._lock:
            cleanups, self._cleanups = list(reversed(self._cleanups)), []
        for fn in cleanups:
            try:
                fn()
            except Exception:
                pass
        with self._lock:
            procs = list(self._procs)
        for proc in procs:
            stop_process(proc, grace=2.0)
            self.forget(proc)
        with self._lock:
            postgres = list(self._postgres)
        for pg in postgres:
            stop_postgres(pg["pg_ctl"], pg["data"])
            self.untrack_postgres(pg["data"])


def stop_process(proc, grace=2.0):
    """SIGCONT, SIGTERM, then SIGKILL after `grace` seconds; reaps it. Then sweeps its process
    group (every process we start leads one): a crashing Swift program leaves its backtracer
    (swift-backtrace) there, which would outlive it."""
    if proc.poll() is None:
        for sig in (signal.SIGCONT, signal.SIGTERM):
            try:
                os.kill(proc.pid, sig)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
    kill_group(proc.pid)
    return proc.returncode


def kill_group(pgid, names=("herald", "swift-backtrace")):
    """SIGKILL to what is left of process group `pgid`: only members whose program is one of
    `names` (a pid, and so a group id, may have been reused by someone else's process)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            # Fields after the parenthesised command: state, ppid, pgrp, ...
            pgrp = int(stat.rsplit(")", 1)[1].split()[2])
        except (OSError, IndexError, ValueError):
            continue
        program = os.path.basename(_cmdline(int(entry)) or "")
        if pgrp == pgid and program in names:
            for sig in (signal.SIGCONT, signal.SIGKILL):
                try:
                    os.kill(int(entry), sig)
                except ProcessLookupError:
                    break


def stop_postgres(pg_ctl_argv, data_dir):
    """`pg_ctl stop -m immediate`: nothing in a throwaway database needs a clean shutdown."""
    if not os.path.exists(os.path.join(data_dir, "postmaster.pid")):
        return
    subprocess.run(pg_ctl_argv + ["-D", data_dir, "-m", "immediate", "-w", "-t", "20", "stop"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=40, check=False)


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return None


def emergency_cleanup(work_dir):
    """For the parent, when a run had to be killed: stops what its state file lists."""
    path = os.path.join(work_dir, STATE_FILE)
    try:
        with open(path) as f:
            state = json.load(f)
    except (OSError, ValueError):
        return
    for entry in state.get("procs", []):
        kill_group(entry["pid"])
    for pg in state.get("postgres", []):
        try:
            stop_postgres(pg["pg_ctl"], pg["data"])
        except Exception:
            pass
    time.sleep(0.2)


def remove_tree(path):
    shutil.rmtree(path, ignore_errors=True)
