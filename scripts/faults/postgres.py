"""A throwaway PostgreSQL for one run, started the way the project's tests start it
(Tests/HeraldTestSupport/PostgresServer.swift, scripts/cluster.sh): initdb into a temp dir as the
`postgres` account when we are root, pg_ctl on a free loopback port with its socket in that dir.
"""

import glob
import os
import pwd
import subprocess
import tempfile

from net import free_port

USER = "herald"
DATABASE = "herald"
FIELD_SEP = "\x1f"


def binaries():
    """The newest /usr/lib/postgresql/*/bin holding initdb."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if not found:
        raise RuntimeError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")
    return os.path.dirname(found[-1])


class Postgres:
    def __init__(self, resources, work_dir):
        self.res = resources
        self.bin = binaries()
        self.dir = os.path.join(work_dir, "pg")
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(self.dir, "server.log")
        self.port = None
        self.run_as = []
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root.
            self.run_as = ["/usr/sbin/runuser", "-u", "postgres", "--"]

    @property
    def url(self):
        return f"postgres://{USER}@127.0.0.1:{self.port}/{DATABASE}"

    def _tool(self, name):
        return self.run_as + [os.path.join(self.bin, name)]

    def _run(self, argv, timeout=60):
        # Output to a file, not a pipe: a server pg_ctl starts could inherit and hold a pipe.
        with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                  timeout=timeout, start_new_session=True)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {(stdout + stderr)[-2000:]}")
        return stdout

    def start(self):
        os.makedirs(self.dir)
        if self.run_as:
            account = pwd.getpwnam("postgres")
            os.chown(self.dir, account.pw_uid, account.pw_gid)
        self._run(self._tool("initdb") + ["-D", self.data, "-U", USER, "--auth=trust", "-E", "UTF8",
                                           "--no-sync", "--no-instructions"])
        last = None
        for _ in range(3):
            self.port = free_port()
            self.res.track_postgres(self._tool("pg_ctl"), self.data)
            try:
                # In a session of its own (start_new_session in _run): Ctrl-C must not stop it
                # behind our back. fsync off: a throwaway database, and 2 cores shared.
                self._run(self._tool("pg_ctl") + [
                    "-D", self.data, "-l", self.log, "-w", "-t", "30", "-o",
                    f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                    "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                    "start"], timeout=60)
                break
            except RuntimeError as error:
                last = error
        else:
            raise last
        self.psql("CREATE DATABASE " + DATABASE, database="postgres")

    def psql(self, sql, database=DATABASE, timeout=30):
        """Runs SQL as the herald superuser over TCP (never through the proxy); returns rows as
        lists of strings."""
        out = self._run([os.path.join(self.bin, "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", USER,
                         "-d", database, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-A", "-t", "-F", FIELD_SEP,
                         "-c", sql], timeout=timeout)
        return [line.split(FIELD_SEP) for line in out.splitlines() if line != ""]

    def terminate_backends(self):
        """pg_terminate_backend of every session on the herald database but this one: the
        nodes' pools and their LISTEN connections alike. Returns how many were terminated."""
        rows = self.psql(f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                         f"WHERE datname = '{DATABASE}' AND pid <> pg_backend_pid()", timeout=10)
        return int(rows[0][0]) if rows else 0

    def postmaster_start_time(self):
        """When the server process started: a restart changes it."""
        rows = self.psql("SELECT pg_postmaster_start_time()", timeout=10)
        return rows[0][0] if rows else None

    def restart(self):
        """pg_ctl restart -m fast: every session is closed, the server is back when it returns."""
        self._run(self._tool("pg_ctl") + ["-D", self.data, "-l", self.log, "-m", "fast", "-w", "-t", "60",
                                          "restart"], timeout=90)

    def log_tail(self, lines=20):
        try:
            with open(self.log, errors="replace") as f:
                return f.readlines()[-lines:]
        except OSError:
            return []
