"""Read the plain integer tensors of STaRK's ``.pt`` files, with or without torch.

A ``.pt`` file is a zip archive: ``<name>/data.pkl`` is a pickle whose persistent ids
point at storages kept as raw little-endian bytes in ``<name>/data/<key>``. For the
simple contiguous tensors STaRK stores (node types, edge index, edge types) a restricted
unpickler is enough: it knows the handful of torch names such a pickle refers to and
refuses everything else, so a hostile file cannot run code.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from afr.errors import LoadError

_DTYPES = {
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
    "FloatStorage": np.float32, "DoubleStorage": np.float64,
}


class _StorageType:
    def __init__(self, name: str) -> None:
        self.dtype = _DTYPES[name]


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple,
                    *_: Any) -> np.ndarray:
    itemsize = storage.dtype.itemsize
    return np.lib.stride_tricks.as_strided(
        storage[offset:], shape=tuple(size), strides=tuple(s * itemsize for s in stride),
        writeable=False,
    ).copy()


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, archive: zipfile.ZipFile, prefix: str) -> None:
        super().__init__(io.BytesIO(data))
        self.archive = archive
        self.prefix = prefix

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return _rebuild_tensor
        if module == "torch" and name in _DTYPES:
            return _StorageType(name)
        if module == "collections" and name == "OrderedDict":
            return OrderedDict
        raise LoadError(f"unsupported object {module}.{name} in a .pt file")

    def persistent_load(self, pid: Any) -> np.ndarray:
        if not isinstance(pid, tuple) or not pid or pid[0] != "storage":
            raise LoadError("unsupported storage reference in a .pt file")
        storage_type, key = pid[1], pid[2]
        if not isinstance(storage_type, _StorageType):
            raise LoadError("unsupported storage type in a .pt file")
        raw = self.archive.read(f"{self.prefix}/data/{key}")
        return np.frombuffer(raw, dtype=np.dtype(storage_type.dtype).newbyteorder("<"))


def read_tensor(path: Path) -> np.ndarray:
    """A tensor file as a numpy array (torch when installed, else the reader above)."""
    try:
        import torch
    except ImportError:
        return read_tensor_without_torch(path)
    try:
        value = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds
        raise LoadError(f"{path.name}: cannot read ({type(exc).__name__}: {exc})") from None
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def read_tensor_without_torch(path: Path) -> np.ndarray:
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise LoadError(f"{path.name}: not a torch .pt archive ({exc})") from None
    with archive:
        pickles = [n for n in archive.namelist() if n.endswith("/data.pkl")]
        if not pickles:
            raise LoadError(f"{path.name}: no data.pkl inside")
        prefix = pickles[0].rsplit("/", 1)[0]
        try:
            value = _Unpickler(archive.read(pickles[0]), archive, prefix).load()
        except LoadError:
            raise
        except Exception as exc:  # noqa: BLE001 - a broken pickle
            raise LoadError(f"{path.name}: cannot read ({type(exc).__name__})") from None
    if not isinstance(value, np.ndarray):
        raise LoadError(f"{path.name}: expected one tensor, found {type(value).__name__}")
    return value
