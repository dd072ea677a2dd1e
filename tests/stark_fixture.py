"""Tiny datasets in STaRK's exact processed layout (node_info.pkl, *.pt, type dicts)."""

from __future__ import annotations

import pickle
import struct
import zipfile
from pathlib import Path

import numpy as np


def save_tensor(path: Path, array: np.ndarray) -> None:
    """``torch.save`` of an integer array, written without torch: a zip archive holding
    ``<name>/data.pkl`` (a pickle that rebuilds the tensor from a storage it refers to by
    persistent id), the storage's little-endian bytes as ``<name>/data/0``, and
    ``<name>/version``. torch.load reads it (tests/test_stark_loader.py checks that where
    torch is installed), so the loader's tests need no torch."""
    array = np.ascontiguousarray(array, dtype=np.int64)
    name = path.stem
    strides = [s // array.itemsize for s in array.strides]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{name}/data.pkl", _tensor_pickle(array.shape, strides, array.size))
        archive.writestr(f"{name}/data/0", array.astype("<i8").tobytes())
        archive.writestr(f"{name}/version", "3\n")


def _tensor_pickle(shape: tuple[int, ...], strides: list[int], numel: int) -> bytes:
    """The pickle torch writes for one contiguous int64 CPU tensor, opcode by opcode:
    torch._utils._rebuild_tensor_v2(storage, 0, shape, strides, False, OrderedDict())
    with the storage as persistent id ('storage', torch.LongStorage, '0', 'cpu', numel)."""

    def text(value: str) -> bytes:
        raw = value.encode()
        return pickle.BINUNICODE + struct.pack("<I", len(raw)) + raw

    def ints(values) -> bytes:
        return pickle.MARK + b"".join(pickle.BININT + struct.pack("<i", v) for v in values) \
            + pickle.TUPLE

    return b"".join([
        pickle.PROTO + b"\x02",
        pickle.GLOBAL + b"torch._utils\n_rebuild_tensor_v2\n",
        pickle.MARK,
        pickle.MARK, text("storage"), pickle.GLOBAL + b"torch\nLongStorage\n", text("0"),
        text("cpu"), pickle.BININT + struct.pack("<i", numel), pickle.TUPLE,
        pickle.BINPERSID,
        pickle.BININT + struct.pack("<i", 0),
        ints(shape), ints(strides), pickle.NEWFALSE,
        pickle.GLOBAL + b"collections\nOrderedDict\n", pickle.EMPTY_TUPLE, pickle.REDUCE,
        pickle.TUPLE,
        pickle.REDUCE,
        pickle.STOP,
    ])


def write_prime(d: Path) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    node_type_dict = {0: "disease", 1: "drug", 2: "gene/protein"}
    edge_type_dict = {0: "indication", 1: "ppi", 2: "target"}
    types = np.array([0, 0, 1, 1, 2, 2, 2], dtype=np.int64)
    info = {
        0: {"name": "asthma", "source": "MONDO",
            "details": {"mondo_definition": "A chronic lung disease.", "umls": [np.int64(3)]}},
        1: {"name": "Alzheimer's disease", "details": {"mondo_definition": "Dementia.",
                                                       "score": float("nan")}},
        2: {"name": "salbutamol", "details": {"description": "A bronchodilator."}},
        3: {"name": "donepezil", "details": {"description": "A cholinesterase inhibitor."}},
        4: {"name": "ADRB2"}, 5: {"name": "ACHE"}, 6: {"name": "APP"},
    }
    # both directions of each edge, plus one exact repeat, as STaRK's files have them
    pairs = [(2, 0, 0), (0, 2, 0), (3, 1, 0), (1, 3, 0), (4, 5, 1), (5, 4, 1), (2, 4, 2),
             (4, 2, 2), (3, 5, 2), (5, 3, 2), (3, 5, 2)]
    edge_index = np.array([[a for a, _, _ in pairs], [b for _, b, _ in pairs]], dtype=np.int64)
    edge_types = np.array([t for _, _, t in pairs], dtype=np.int64)
    _write(d, info, types, edge_index, edge_types, node_type_dict, edge_type_dict)
    return d


def write_mag(d: Path) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    types = np.array([0, 0, 1, 2, 3, 3], dtype=np.int64)  # MAG's fixed dictionaries
    info = {0: {"DisplayName": "Ada Lovelace"}, 1: {"DisplayName": "Alan Turing"},
            2: {"DisplayName": "University of Cambridge"}, 3: {"DisplayName": "computing"},
            4: {"title": "On computable numbers", "abstract": "Numbers a machine can write.",
                "Year": 1936},
            5: {"title": "Notes on the analytical engine", "abstract": "A program.",
                "Year": 1843}}
    edge_index = np.array([[1, 1, 0, 4, 5, 4], [4, 2, 5, 3, 3, 5]], dtype=np.int64)
    edge_types = np.array([3, 0, 3, 2, 2, 1], dtype=np.int64)
    _write(d, info, types, edge_index, edge_types, None, None)
    return d


def write_amazon(d: Path) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    node_type_dict = {0: "brand", 1: "category", 2: "color", 3: "product"}
    edge_type_dict = {0: "also_buy", 1: "also_view", 2: "has_brand", 3: "has_category",
                      4: "has_color"}
    types = np.array([0, 1, 2, 3, 3], dtype=np.int64)
    info = {0: {"brand_name": "Acme"}, 1: {"category_name": "Tents"},
            2: {"color_name": "green"},
            3: {"title": "Acme 2-person tent", "description": ["Light.", "Waterproof."],
                "feature": ["2 kg"], "price": "$120", "review": [{"summary": "great"}]},
            4: {"title": "Acme stove", "description": "Small.", "price": None}}
    edge_index = np.array([[3, 3, 3, 4, 3], [0, 1, 2, 0, 4]], dtype=np.int64)
    edge_types = np.array([2, 3, 4, 2, 0], dtype=np.int64)
    _write(d, info, types, edge_index, edge_types, node_type_dict, edge_type_dict)
    return d


def _write(d: Path, info: dict, types: np.ndarray, edge_index: np.ndarray,
           edge_types: np.ndarray, node_dict: dict | None, edge_dict: dict | None) -> None:
    with open(d / "node_info.pkl", "wb") as fh:
        pickle.dump(info, fh)
    save_tensor(d / "node_types.pt", types)
    save_tensor(d / "edge_index.pt", edge_index)
    save_tensor(d / "edge_types.pt", edge_types)
    if node_dict is not None:
        with open(d / "node_type_dict.pkl", "wb") as fh:
            pickle.dump(node_dict, fh)
        with open(d / "edge_type_dict.pkl", "wb") as fh:
            pickle.dump(edge_dict, fh)
