"""Issue 24: an SKB whose nodes and edges are Delta Lake or Iceberg tables (`afr load
--format delta|iceberg`) loads into every store exactly as its JSON lines and CSV do:
the tables' current versions, deletes applied, checked the same way."""

from __future__ import annotations

import builtins
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from skbutil import delta_skb, iceberg_skb, toy_skb
from test_load_parquet import contents, loads_and_refuses

from afr.errors import LoadError
from afr.load import load_skb_dir
from afr.load.tables import iceberg_metadata
from afr.store import Store, open_store


@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_lakehouse_tables_load_as_their_text_files_do(store: Store, tmp_path: Path,
                                                       fmt: str) -> None:
    text = toy_skb(tmp_path / "text")
    tables = (delta_skb(text, tmp_path / "tables") if fmt == "delta"
              else iceberg_skb(text, tmp_path / "tables", tmp_path / "catalog"))
    report = load_skb_dir(store, tables, tables=fmt, progress=False)
    assert (report.nodes, report.edges, report.aliases) == (8, 7, 1)
    reference = open_store(tmp_path / "text.duckdb")
    load_skb_dir(reference, text, progress=False)
    assert contents(store) == contents(reference)
    reference.close()


def test_the_format_is_found_without_being_named(duck_store: Store, tmp_path: Path) -> None:
    text = toy_skb(tmp_path / "text")
    report = load_skb_dir(duck_store, delta_skb(text, tmp_path / "delta"), progress=False)
    assert report.edges == 7


def test_lakehouse_problems_are_named_and_nothing_is_loaded(duck_store: Store,
                                                            tmp_path: Path) -> None:
    text = toy_skb(tmp_path / "text")
    dangling = delta_skb(text, tmp_path / "dangling")
    write_deltalake(str(dangling / "edges"), pa.table(
        {"src": ["p1"], "type": ["cites"], "dst": ["p9"]}), mode="append")
    with pytest.raises(LoadError, match=r"edges: 1 problem\(s\): 1 × target node not in "
                                         r"nodes, e\.g\. row \d+ \(p9\)"):
        load_skb_dir(duck_store, dangling, progress=False)
    with pytest.raises(LoadError, match=r"missing the Delta table nodes/ \(a folder with "
                                         r"_delta_log\)$"):
        load_skb_dir(duck_store, text, tables="delta", progress=False)
    broken = delta_skb(text, tmp_path / "broken")
    shutil.rmtree(broken / "nodes" / "_delta_log")
    (broken / "nodes" / "_delta_log").mkdir()
    with pytest.raises(LoadError, match=r"nodes/: cannot read the Delta table \("):
        load_skb_dir(duck_store, broken, tables="delta", progress=False)
    assert duck_store.skb_name() is None


def test_the_current_iceberg_metadata_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "t" / "metadata"
    folder.mkdir(parents=True)
    for name in ("00001-a.metadata.json", "00002-b.metadata.json", "snap-1.avro"):
        (folder / name).write_text("{}")
    assert iceberg_metadata(tmp_path / "t").name == "00002-b.metadata.json"
    (folder / "00002-c.metadata.json").write_text("{}")
    with pytest.raises(LoadError, match="2 metadata files of version 2"):
        iceberg_metadata(tmp_path / "t")
    for name in ("v1.metadata.json", "v7.metadata.json"):  # a Hadoop table: the hint says
        (folder / name).write_text("{}")
    (folder / "version-hint.text").write_text("1\n")
    assert iceberg_metadata(tmp_path / "t").name == "v1.metadata.json"


def test_a_missing_reader_is_named_with_its_extra(duck_store: Store, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    text = toy_skb(tmp_path / "text")
    tables = delta_skb(text, tmp_path / "tables")
    real_import = builtins.__import__

    def without_deltalake(name: str, *args, **kwargs):
        if name.startswith("deltalake"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_deltalake)
    with pytest.raises(LoadError, match=r"needs the deltalake package: "
                                         r"pip install 'afr\[delta\]'"):
        load_skb_dir(duck_store, tables, progress=False)


def test_load_format_iceberg_from_the_command_line(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = toy_skb(tmp_path / "text")
    loads_and_refuses(tmp_path, iceberg_skb(text, tmp_path / "tables", tmp_path / "catalog"),
                      text, "iceberg", "missing the Iceberg table nodes/")


def test_a_delta_skb_loads_into_spark_as_into_duckdb(spark_store: Store, tmp_path: Path
                                                     ) -> None:
    """Spark's own Delta reader needs jars from Maven; the load reads the table on the
    driver and writes the warehouse's Parquet, as for every SKB."""
    text = toy_skb(tmp_path / "text")
    load_skb_dir(spark_store, delta_skb(text, tmp_path / "tables"), tables="delta",
                 progress=False)
    reference = open_store(tmp_path / "text.duckdb")
    load_skb_dir(reference, text, progress=False)
    assert contents(spark_store, "STRING") == contents(reference)
    reference.close()
