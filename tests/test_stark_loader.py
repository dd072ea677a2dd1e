"""STaRK's processed format into both stores."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from stark_fixture import save_tensor, write_amazon, write_mag, write_prime

from afr.errors import LoadError
from afr.load.stark import load_stark
from afr.load.torchpt import read_tensor, read_tensor_without_torch
from afr.store import Store

# The fixtures' .pt files are written without torch (stark_fixture.save_tensor): every
# test here runs without it; the one comparison with torch.load runs where it is installed.


def test_prime(store: Store, tmp_path: Path) -> None:
    report = load_stark(store, write_prime(tmp_path / "prime"), progress=False)
    assert report.nodes == 7 and report.edges == 5  # 11 stored: mirrors and a repeat dropped
    assert any("mirrored" in w for w in report.warnings)
    schema = store.skb_schema()
    assert schema.name == "stark-prime" and not schema.directed
    assert schema.candidate_types == sorted(["disease", "drug", "gene/protein"])
    assert schema.edge_types["indication"].label in ("drug_indication_disease",
                                                     "disease_indication_drug")
    rows = dict(store.query("SELECT ext_id, name FROM nodes"))
    assert rows["1"] == "Alzheimer's disease" and rows["4"] == "ADRB2"
    text = store.query("SELECT text FROM nodes WHERE id = 0")[0][0]
    assert "chronic lung disease" in text
    attrs = store.query("SELECT CAST(attrs AS VARCHAR) FROM nodes WHERE id = 1")[0][0]
    assert json.loads(attrs)["details"]["score"] is None  # NaN → null


def test_mag_fixed_dicts(store: Store, tmp_path: Path) -> None:
    report = load_stark(store, write_mag(tmp_path / "mag"), progress=False)
    assert report.nodes == 6 and report.edges == 6
    schema = store.skb_schema()
    assert schema.candidate_types == ["paper"]
    assert schema.edge_type("author_writes_paper") == "author___writes___paper"
    names = dict(store.query("SELECT ext_id, name FROM nodes"))
    assert names["4"] == "On computable numbers" and names["2"] == "University of Cambridge"


def test_amazon(store: Store, tmp_path: Path) -> None:
    load_stark(store, write_amazon(tmp_path / "amazon"), progress=False)
    names = dict(store.query("SELECT ext_id, name FROM nodes"))
    assert names == {"0": "Acme", "1": "Tents", "2": "green", "3": "Acme 2-person tent",
                     "4": "Acme stove"}
    assert store.skb_schema().candidate_types == ["product"]
    text = store.query("SELECT text FROM nodes WHERE id = 3")[0][0]
    assert "Waterproof." in text and "2 kg" in text


def test_out_of_range_edge_leaves_store_unchanged(store: Store, tmp_path: Path) -> None:
    load_stark(store, write_mag(tmp_path / "ok"), progress=False)
    bad = write_prime(tmp_path / "bad")
    save_tensor(bad / "edge_index.pt", np.array([[0, 1], [2, 99]]))
    save_tensor(bad / "edge_types.pt", np.array([0, 0]))
    with pytest.raises(LoadError, match="outside"):
        load_stark(store, bad, replace=True, progress=False)
    assert store.skb_name() == "stark-mag"
    assert store.query("SELECT count(*) FROM nodes")[0][0] == 6


def test_hostile_pickle_is_refused(duck_store: Store, tmp_path: Path) -> None:
    d = write_prime(tmp_path / "evil")

    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    with open(d / "node_info.pkl", "wb") as fh:
        pickle.dump({0: Evil()}, fh)
    with pytest.raises(LoadError, match="refusing to unpickle"):
        load_stark(duck_store, d, progress=False)


def test_torch_free_reader(tmp_path: Path) -> None:
    for shape in ((7,), (2, 11), (1, 1)):
        array = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) * 3 - 5
        save_tensor(tmp_path / "t.pt", array)
        got = read_tensor_without_torch(tmp_path / "t.pt")
        assert got.dtype == np.int64 and np.array_equal(got, array)
        assert np.array_equal(read_tensor(tmp_path / "t.pt"), array)  # torch's, if there
    (tmp_path / "broken.pt").write_bytes(b"not a zip")
    with pytest.raises(LoadError, match="not a torch"):
        read_tensor_without_torch(tmp_path / "broken.pt")


def test_torch_reads_the_fixture_files_as_the_torch_free_reader(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="torch is optional (the [stark] extra)")
    d = write_prime(tmp_path / "p")
    for name in ("node_types.pt", "edge_index.pt", "edge_types.pt"):
        by_torch = torch.load(d / name, weights_only=True).numpy()
        assert np.array_equal(read_tensor_without_torch(d / name), by_torch)
    torch.save(torch.tensor([[4, 5], [6, 7]]), tmp_path / "real.pt")  # torch's own file
    assert read_tensor_without_torch(tmp_path / "real.pt").tolist() == [[4, 5], [6, 7]]
