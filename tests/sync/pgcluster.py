"""A throwaway PostgreSQL cluster for the sync tests: initdb + pg_ctl in a temp folder.

The binaries are found on PATH or under ``/usr/lib/postgresql/*/bin`` (Debian's
``postgresql`` package). PostgreSQL refuses to run as root, so as root the cluster is
created and run as the unprivileged ``nobody`` (``setpriv``), in a folder of its own that
user owns, under a temp folder it can reach. The server listens on a free TCP port of 127.0.0.1 and on a Unix socket in
that folder; authentication is ``trust`` (only this machine's loopback can reach it).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from glob import glob
from pathlib import Path

__all__ = ["PgCluster", "find_binaries", "missing_reason"]

USER = "tapestry"


def find_binaries() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres`` (None when they are missing)."""
    found = shutil.which("initdb")
    candidates = ([str(Path(os.path.realpath(found)).parent)] if found else []) + sorted(
        glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if all(os.access(os.path.join(folder, name), os.X_OK) for name in ("initdb", "pg_ctl", "postgres")):
            return Path(folder)
    return None


def missing_reason() -> str:
    """Why the cluster cannot start here (``""`` when it can)."""
    if find_binaries() is None:
        return ("PostgreSQL's initdb/pg_ctl/postgres are not installed (Debian: apt-get install postgresql; "
                "looked on PATH and in /usr/lib/postgresql/*/bin)")
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "running as root, and setpriv (util-linux) is missing to start PostgreSQL as nobody"
    try:
        import psycopg  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ImportError as exc:
        return f"the sync extra is not installed ({exc.name}); pip install '.[sync]'"
    return ""


def _reachable_parent() -> str:
    """A temp folder every user can reach (each folder on its path searchable by others).

    Root's own temp folder may be private (0700 /tmp in some containers); ``nobody`` could
    not open a cluster inside it.
    """
    for folder in (tempfile.gettempdir(), "/var/tmp", "/dev/shm"):
        path = Path(folder).resolve()
        if path.is_dir() and all(p.stat().st_mode & 0o001 for p in (path, *path.parents)):
            return str(path)
    raise RuntimeError("no temp folder that nobody can reach (tried $TMPDIR, /var/tmp, /dev/shm)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    """One cluster: :meth:`start`, :meth:`stop` (fast or immediate), :meth:`create_database`, :meth:`url`."""

    def __init__(self) -> None:
        bindir = find_binaries()
        assert bindir is not None, missing_reason()
        self.bindir = bindir
        parent = _reachable_parent() if os.geteuid() == 0 else None
        self.root = Path(tempfile.mkdtemp(prefix="tapestry-pg-", dir=parent))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_nobody = os.geteuid() == 0
        if self.as_nobody:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)
        os.chmod(self.root, 0o700)
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "--no-sync", "-E", "UTF8",
                  "--locale=C")
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                       f"unix_socket_directories = '{self.root}'\nfsync = off\nfull_page_writes = off\n"
                       "synchronous_commit = off\nmax_connections = 60\nshared_buffers = 64MB\n")

    def _run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bindir / tool), *args]
        if self.as_nobody:
            cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--reset-env", *cmd]
        return subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=self.root, timeout=120)

    def start(self) -> None:
        """Start the server and wait until it accepts connections (pg_ctl -w)."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: roll back sessions; ``immediate``: as a crash would)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def running(self) -> bool:
        """Whether the postmaster runs."""
        try:
            self._run("pg_ctl", "-D", str(self.data), "status")
        except subprocess.CalledProcessError:
            return False
        return True

    def url(self, database: str = "postgres") -> str:
        """A SQLAlchemy/psycopg URL over TCP to ``database``."""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database; returns its URL."""
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={USER} dbname=postgres",
                             autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def destroy(self) -> None:
        """Stop (if running) and delete the cluster's folder."""
        if self.running():
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
