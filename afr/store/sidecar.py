"""Files derived from a store, written beside it (``Store.sidecar_dir``): memory-mapped
vector matrices (``afr.vectors.memory``) and BM25 postings (``afr.lexical.memory``).

Each is written whole or not at all: into a temporary file in the same folder, renamed
over the old one when complete, so a failed write (full disk, crash) leaves the previous
file or none, never half of one; a folder made for it and left empty goes again. A reader
maps such a file only for the version of the store's data it was written for.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO


def write_sidecar_file(path: Path, write: Callable[[BinaryIO], None]) -> bool:
    """Write ``path`` through ``write(file)``, atomically. False when the folder or the
    file cannot be written (read-only, full disk): the callers' searches still work."""
    created = not path.parent.exists()
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name + ".",
                                         suffix=".tmp", delete=False) as fh:
            tmp = Path(fh.name)
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
        return True
    except OSError:
        _remove(tmp)
        tmp = None
        if created:
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # only if empty: nothing of ours left behind
        return False
    finally:
        _remove(tmp)  # whatever else failed (the caller's error goes on)


def _remove(tmp: Path | None) -> None:
    if tmp is not None:
        with contextlib.suppress(OSError):
            tmp.unlink()


# A sidecar file starts with its kind's magic bytes, the length of a JSON header (8 bytes,
# little-endian) and the header; its arrays follow, each at a 64-byte boundary.
ALIGN = 64


def aligned(offset: int) -> int:
    return (offset + ALIGN - 1) // ALIGN * ALIGN


def header_bytes(magic: bytes, header: dict[str, Any]) -> bytes:
    """The start of a sidecar file: magic, header length, JSON header."""
    head = json.dumps(header).encode("utf-8")
    return magic + len(head).to_bytes(8, "little") + head


def read_header(path: Path, magic: bytes) -> tuple[dict[str, Any], int] | None:
    """A sidecar file's header and the offset just after it; None when the file is
    missing or not of this kind (its magic)."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(magic)) != magic:
                return None
            size = int.from_bytes(fh.read(8), "little")
            header = json.loads(fh.read(size).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return (header, len(magic) + 8 + size) if isinstance(header, dict) else None
