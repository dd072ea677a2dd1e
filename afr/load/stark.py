"""`afr load --format stark`: STaRK's processed SKB files (PRIME, MAG, AMAZON).

Reads ``node_info.pkl``, ``node_types.pt``, ``edge_index.pt``, ``edge_types.pt`` and the
type dictionaries (MAG has none: its dictionaries are fixed), takes names and texts from
the fields STaRK itself uses, and stages everything in DuckDB like an SKB directory.
STaRK's integer ids become the store's ids, so STaRK answer ids match. The graphs are
undirected: an edge stored both ways is kept once.
"""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from afr.errors import LoadError
from afr.load.loader import LoadReport, load_staged
from afr.load.stage import StageResult, _duck_error, _run
from afr.load.torchpt import read_tensor
from afr.progress import Phases, bar
from afr.store.base import Store
from afr.store.skb import EdgeType, NodeType, SkbSchema

MAG_NODE_TYPES = {0: "author", 1: "institution", 2: "field_of_study", 3: "paper"}
MAG_EDGE_TYPES = {0: "author___affiliated_with___institution", 1: "paper___cites___paper",
                  2: "paper___has_topic___field_of_study", 3: "author___writes___paper"}
CANDIDATES = {"prime": None, "mag": ["paper"], "amazon": ["product"]}
TEXT_LIMIT = 4000
VALUE_LIMIT = 2000


class _SafeUnpickler(pickle.Unpickler):
    """Builtin containers and numpy values only: a pickle cannot run code here."""

    _ALLOWED = {
        ("builtins", "dict"), ("builtins", "list"), ("builtins", "set"), ("builtins", "tuple"),
        ("builtins", "frozenset"), ("collections", "OrderedDict"),
        ("collections", "defaultdict"), ("numpy", "dtype"), ("numpy", "ndarray"),
        ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
        ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    }

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self._ALLOWED:
            return super().find_class(module, name)
        raise LoadError(f"refusing to unpickle {module}.{name} (only plain data is allowed)")


def _read_pickle(path: Path) -> Any:
    try:
        with open(path, "rb") as fh:
            return _SafeUnpickler(fh).load()
    except FileNotFoundError:
        raise LoadError(f"{path}: missing") from None
    except LoadError:
        raise
    except Exception as exc:  # noqa: BLE001 - corrupt pickles raise anything
        raise LoadError(f"{path.name}: cannot read ({type(exc).__name__})") from None


def _jsonable(value: Any, depth: int = 0) -> Any:
    if depth > 4:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, str):
        return value[:VALUE_LIMIT]
    if isinstance(value, bool | int) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in list(value.items())[:50]}
    if isinstance(value, list | tuple | set | frozenset | np.ndarray):
        return [_jsonable(v, depth + 1) for v in list(value)[:20]]
    return str(value)[:VALUE_LIMIT]


def _text_of(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _text_of(v)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _text_of(v)]
    return []


def _name_and_text(dataset: str, node_type: str, info: dict) -> tuple[str | None, str]:
    if dataset == "mag":
        name = info.get("title") if node_type == "paper" else info.get("DisplayName")
        text = _text_of(info.get("abstract"))
    elif dataset == "amazon":
        field = {"product": "title", "brand": "brand_name", "category": "category_name",
                 "color": "color_name"}.get(node_type, "title")
        name = info.get(field)
        text = _text_of(info.get("description")) + _text_of(info.get("feature"))
    else:
        name = info.get("name")
        text = _text_of(info.get("details"))
    name = str(name) if name is not None else None
    return name, " ".join(" ".join(text).split())[:TEXT_LIMIT]


def detect_dataset(node_type_names: set[str]) -> str:
    if {"paper", "author"} <= node_type_names:
        return "mag"
    if "product" in node_type_names:
        return "amazon"
    return "prime"


def _type_dicts(directory: Path, dataset_hint: str | None) -> tuple[dict, dict, str]:
    node_dict_path = directory / "node_type_dict.pkl"
    if node_dict_path.exists():
        node_dict = {int(k): str(v) for k, v in _read_pickle(node_dict_path).items()}
        edge_dict = {int(k): str(v) for k, v in
                     _read_pickle(directory / "edge_type_dict.pkl").items()}
    elif dataset_hint in (None, "mag"):
        node_dict, edge_dict = dict(MAG_NODE_TYPES), dict(MAG_EDGE_TYPES)
    else:
        raise LoadError(f"{directory}: node_type_dict.pkl is missing")
    dataset = dataset_hint or detect_dataset(set(node_dict.values()))
    return node_dict, edge_dict, dataset


def _edge_label(name: str, pair: tuple[str, str] | None) -> str:
    if "___" in name:
        return name.replace("___", "_").replace(" ", "_")
    words = name.replace(" ", "_")
    return f"{pair[0]}_{words}_{pair[1]}" if pair else words


def load_stark(store: Store, directory: str | Path, *, dataset: str | None = None,
               replace: bool = False, progress: bool | None = None) -> LoadReport:
    """Load STaRK's processed files in ``directory`` (``dataset``: prime, mag or amazon;
    None: told by the node types)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise LoadError(f"{directory}: not a directory (expected STaRK's processed files)")
    node_dict, edge_dict, dataset = _type_dicts(directory, dataset)
    node_info = _read_node_info(directory)
    node_types, edge_index, edge_types = _read_graph(directory, node_dict)

    def stage(con: duckdb.DuckDBPyConnection, phases: Phases) -> StageResult:
        phases.next("reading and checking nodes")
        con.register("stark_nodes", _node_columns(dataset, node_dict, node_info, node_types,
                                                  progress))
        phases.next("reading and checking edges")
        con.register("stark_edges", {"src": edge_index[0], "dst": edge_index[1],
                                     "t": edge_types})
        con.register("stark_edge_names", {
            "t": np.array(list(edge_dict), dtype=np.int64),
            "name": np.array(list(edge_dict.values()), dtype=object)})
        return _stage_registered(con, directory, len(node_types), int(edge_index.shape[1]))

    schema = _schema(dataset, node_dict, edge_dict, node_types, edge_index, edge_types)
    return load_staged(store, schema, stage, replace=replace, source=str(directory),
                       progress=progress)


def _read_node_info(directory: Path) -> dict:
    node_info = _read_pickle(directory / "node_info.pkl")
    if not isinstance(node_info, dict):
        raise LoadError("node_info.pkl: expected a dict of node id → attributes")
    return node_info


def _read_graph(directory: Path, node_dict: dict[int, str]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The node types, edge index and edge types, checked against each other and the
    type dictionary."""
    node_types = read_tensor(directory / "node_types.pt").astype(np.int64).reshape(-1)
    edge_index = read_tensor(directory / "edge_index.pt").astype(np.int64)
    edge_types = read_tensor(directory / "edge_types.pt").astype(np.int64).reshape(-1)
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise LoadError(f"edge_index.pt: expected shape [2, E], found {list(edge_index.shape)}")
    if edge_index.shape[1] != edge_types.shape[0]:
        raise LoadError(f"edge_types.pt has {edge_types.shape[0]} entries for "
                        f"{edge_index.shape[1]} edges")
    unknown = sorted(set(np.unique(node_types).tolist()) - set(node_dict))
    if unknown:
        raise LoadError(f"node_types.pt uses type indexes missing from the dictionary: "
                        f"{unknown[:5]}")
    return node_types, edge_index, edge_types


def _node_columns(dataset: str, node_dict: dict[int, str], node_info: dict,
                  node_types: np.ndarray, progress: bool) -> dict[str, np.ndarray]:
    """The columns of the staged nodes: STaRK's ids, names and texts from the fields STaRK
    uses, and its attributes as JSON."""
    n = len(node_types)
    names, texts, attrs, ext = [], [], [], []
    type_names = np.array([node_dict[int(t)] for t in node_types], dtype=object)
    with bar(n, "node attributes", enabled=progress, unit="node") as pbar:
        for i in range(n):
            info = node_info.get(i, {})
            info = info if isinstance(info, dict) else {}
            name, text = _name_and_text(dataset, type_names[i], info)
            names.append(name)
            texts.append(text or None)
            attrs.append(json.dumps(_jsonable(info), ensure_ascii=False))
            ext.append(str(i))
            if i % 10000 == 0:
                pbar.update(min(10000, n - i))
    return {
        "id": np.arange(n, dtype=np.int64), "ext_id": np.array(ext, dtype=object),
        "type": type_names, "name": np.array(names, dtype=object),
        "text": np.array(texts, dtype=object), "attrs": np.array(attrs, dtype=object),
    }


def _stage_registered(con: duckdb.DuckDBPyConnection, directory: Path, n: int,
                      edges_read: int) -> StageResult:
    """Stage the registered nodes and edges like an SKB directory's, after checking that
    every edge joins two of the ``n`` nodes by a named type."""
    result = StageResult(int_ids=True)
    try:
        _run(con, "load/stark_nodes.sql")
        bad = _run(con, "load/stark_check_edges.sql", {"n": n})[0]
        if bad[0]:
            raise LoadError(f"edge_index.pt: {bad[0]} edges point outside the "
                            f"{n} nodes, e.g. {bad[1]}")
        if bad[2]:
            raise LoadError(f"edge_types.pt: {bad[2]} edges have a type missing from "
                            f"the dictionary, e.g. {bad[3]}")
        _run(con, "load/stark_edges.sql")
        result.nodes = n
        result.edges = _run(con, "load/count_edges.sql")[0][0]
    except duckdb.Error as exc:
        raise _duck_error(directory / "edge_index.pt", exc) from None
    dropped = edges_read - result.edges
    if dropped:
        result.warnings.append(f"{dropped:,} repeated or mirrored edges dropped "
                               "(STaRK graphs are undirected)")
    return result


def _schema(dataset: str, node_dict: dict[int, str], edge_dict: dict[int, str],
            node_types: np.ndarray, edge_index: np.ndarray, edge_types: np.ndarray
            ) -> SkbSchema:
    candidates = CANDIDATES.get(dataset)
    pairs: dict[str, tuple[str, str]] = {}
    if edge_index.shape[1]:
        src_t = node_types[np.clip(edge_index[0], 0, len(node_types) - 1)]
        dst_t = node_types[np.clip(edge_index[1], 0, len(node_types) - 1)]
        for t in np.unique(edge_types):
            mask = edge_types == t
            combos, counts = np.unique(np.stack([src_t[mask], dst_t[mask]]), axis=1,
                                       return_counts=True)
            a, b = combos[:, int(np.argmax(counts))]
            if int(t) in edge_dict and int(a) in node_dict and int(b) in node_dict:
                pairs[edge_dict[int(t)]] = (node_dict[int(a)], node_dict[int(b)])
    nodes = {name: NodeType(name, name, "", candidates is None or name in candidates)
             for name in node_dict.values()}
    edges = {}
    for name in edge_dict.values():
        pair = pairs.get(name)
        edges[name] = EdgeType(name, _edge_label(name, pair), "",
                               pair[0] if pair else None, pair[1] if pair else None)
    return SkbSchema(f"stark-{dataset}", f"STaRK {dataset.upper()} (processed files)",
                     False, nodes, edges)


