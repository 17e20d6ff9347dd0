"""`herald serve` nodes for one run: each with its own node id, port, data dir, config file and
log file, on one shared PostgreSQL (optionally reached through the proxy) or alone on SQLite.

Config keys are the ones Sources/HeraldComposition/ServerConfiguration.swift knows; the
environment is cleared of HERALD_* so nothing from the caller's shell leaks in.
"""

import os
import signal
import subprocess
import time

from net import Client, HTTPFailure, free_port
from procs import kill_group, stop_process

LEASE_MS = 3000      # as the project's cluster end-to-end tests: faults show within seconds
SWEEP_MS = 500
DRAIN_MS = 3000


class Node:
    def __init__(self, name, port, config_path, log_path, data_dir):
        self.name = name
        self.port = port
        self.config_path = config_path
        self.log_path = log_path
        self.data_dir = data_dir
        self.proc = None
        self.stopped = False        # SIGSTOPped
        self.expect_exit = False    # we killed or stopped it: its exit is not a crash

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def __repr__(self):
        return f"{self.name}(:{self.port})"


class Cluster:
    def __init__(self, resources, binary, work_dir, storage_url=None, extra_config=None):
        """`storage_url` None means SQLite (then one node only, in its data dir)."""
        self.res = resources
        self.binary = binary
        self.work_dir = work_dir
        self.storage_url = storage_url
        self.extra_config = extra_config or {}
        self.nodes = []
        self.node_env = {}          # node name -> extra environment (the clock-skew test hook)
        self.deaths = []            # (node name, exit status) of exits we did not cause
        self.http = Client(timeout=3.0)

    # -- configuration -----------------------------------------------------------------------

    def _config(self, node):
        config = {
            "listen": f"127.0.0.1:{node.port}",
            "dataDir": node.data_dir,
            "logLevel": "info",
            "storage": {"poolSize": 8},
            "node": {"id": node.name, "leaseMs": LEASE_MS, "sweepMs": SWEEP_MS},
            # One client hammers every node; per-key buckets would refuse it (429).
            "limits": {"ratePerSecond": 100000, "rateBurst": 100000},
            "shutdown": {"drainMs": DRAIN_MS},
        }
        if self.storage_url:
            config["storage"]["url"] = self.storage_url
        for path, value in self.extra_config.items():
            section, _, key = path.partition(".")
            if key:
                config.setdefault(section, {})[key] = value
            else:
                config[section] = value
        return to_yaml(config)

    def add_node(self, name):
        node = Node(name, free_port(), os.path.join(self.work_dir, f"{name}.yaml"),
                    os.path.join(self.work_dir, f"{name}.log"), os.path.join(self.work_dir, f"{name}-data"))
        os.makedirs(node.data_dir, exist_ok=True)
        self.nodes.append(node)
        return node

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self, count):
        for i in range(count):
            self.add_node(f"node-{i + 1}")
        # Started together (migrations race under the advisory lock, as in production).
        for node in self.nodes:
            self._spawn(node)
        for node in self.nodes:
            self.wait_healthy(node)

    def _spawn(self, node):
        with open(node.config_path, "w") as f:
            f.write(self._config(node))
        with open(node.log_path, "ab") as f:
            f.write(f"=== harness: starting {node.name} on port {node.port} at {time.time():.3f}\n".encode())
        env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
        env.update(self.node_env.get(node.name, {}))
        node.proc = self.res.spawn([self.binary, "serve", "--config", node.config_path], node.log_path, env=env)
        node.stopped = False
        node.expect_exit = False

    def wait_healthy(self, node, timeout=90.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if node.proc.poll() is not None:
                raise RuntimeError(f"{node.name} exited with {node.proc.returncode} before answering /healthz\n"
                                   + "".join(self.log_tail(node)))
            try:
                if self.http.request("GET", node.port, "/healthz", timeout=1.0).status == 200:
                    return
            except HTTPFailure:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{node.name} did not answer /healthz within {timeout:.0f} s\n" + "".join(self.log_tail(node)))

    def check_deaths(self):
        """Records every node that exited without being told to; returns all recorded so far."""
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is not None and not node.expect_exit:
                self.deaths.append((node.name, node.proc.returncode))
                node.expect_exit = True   # recorded once
        return self.deaths

    def restart(self, node):
        """Starts a node again under the same name, port and data dir."""
        self.check_deaths()
        if node.running:
            raise RuntimeError(f"{node.name} is still running")
        self._spawn(node)
        self.wait_healthy(node)

    def kill9(self, node):
        """SIGKILL; returns the exit status (-9 if the signal killed it)."""
        self.check_deaths()
        node.expect_exit = True
        self._log(node, "SIGKILL")
        node.proc.send_signal(signal.SIGKILL)
        code = node.proc.wait(timeout=10)
        kill_group(node.proc.pid)   # a crash backtracer it may have started
        self.res.forget(node.proc)
        return code

    def sigstop(self, node):
        self._log(node, "SIGSTOP")
        node.proc.send_signal(signal.SIGSTOP)
        node.stopped = True

    def sigcont(self, node):
        node.proc.send_signal(signal.SIGCONT)
        node.stopped = False
        self._log(node, "SIGCONT")

    def sigterm(self, node):
        self.check_deaths()
        node.expect_exit = True
        self._log(node, "SIGTERM")
        node.proc.send_signal(signal.SIGTERM)

    def wait_exit(self, node, timeout):
        """The exit status, or None if the node outlived `timeout`."""
        try:
            code = node.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        kill_group(node.proc.pid)
        self.res.forget(node.proc)
        return code

    def stop_all(self):
        """SIGTERM to every running node at once, SIGKILL to any still running after the drain
        time + 5 s (the bound Herald promises). Returns {name: exit status} (None: it had to be killed)."""
        self.check_deaths()
        running = [n for n in self.nodes if n.running]
        for node in running:
            node.expect_exit = True
            if node.stopped:
                self.sigcont(node)
            self._log(node, "SIGTERM (end of run)")
            node.proc.send_signal(signal.SIGTERM)
        deadline = time.time() + DRAIN_MS / 1000 + 5
        statuses = {}
        for node in running:
            try:
                statuses[node.name] = node.proc.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                statuses[node.name] = None
                stop_process(node.proc, grace=0.1)
            self.res.forget(node.proc)
        return statuses

    # -- diagnostics -------------------------------------------------------------------------

    def _log(self, node, what):
        with open(node.log_path, "ab") as f:
            f.write(f"=== harness: {what} {node.name} at {time.time():.3f}\n".encode())

    @staticmethod
    def log_tail(node, lines=30):
        try:
            with open(node.log_path, errors="replace") as f:
                return f.readlines()[-lines:]
        except OSError:
            return []


def to_yaml(mapping, indent=0):
    """The two-level YAML our configs need (values are numbers or plain strings)."""
    out = []
    for key, value in mapping.items():
        if isinstance(value, dict):
            out.append(" " * indent + f"{key}:")
            out.append(to_yaml(value, indent + 2))
        else:
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, (int, float)):
                text = str(value)
            else:
                text = '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
            out.append(" " * indent + f"{key}: {text}")
    return "\n".join(out) + ("\n" if indent == 0 else "")
