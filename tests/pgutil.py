"""Helpers for tests that need the PostgreSQL server itself (restarts)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path


def pgdata_of(url: str) -> Path | None:
    """pgserver's URLs name its data directory as the socket host; None for other URLs."""
    if "host=" not in url:
        return None
    path = Path(url.split("host=", 1)[1].split("&")[0])
    return path if (path / "postmaster.pid").exists() else None


def stop_test_server(datadir: Path) -> None:
    """Stop the pgserver test server of ``datadir`` (whichever postmaster runs there now,
    also one a test restarted) and remove the directory: a test run leaves no server and
    no data behind."""
    try:
        from pgserver._commands import pg_ctl
    except ImportError:
        pg_ctl = None
    if pg_ctl is not None and (datadir / "postmaster.pid").exists():
        user = "pgserver" if os.geteuid() == 0 else None
        try:
            pg_ctl(["-w", "-m", "fast", "stop"], pgdata=datadir, user=user, timeout=60)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
            pid_file = datadir / "postmaster.pid"
            with contextlib.suppress(OSError, ValueError, IndexError):  # end it by its pid
                os.kill(int(pid_file.read_text().split()[0]), 9)
    for _ in range(50):  # the postmaster removes its pid file last
        if not (datadir / "postmaster.pid").exists():
            break
        time.sleep(0.1)
    shutil.rmtree(datadir, ignore_errors=True)
