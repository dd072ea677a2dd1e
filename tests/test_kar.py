"""KAR (`--method kar`): the lenient entity parse, the neighbourhood SQL against a
brute-force walk, both LLM calls against the scripted server (prompts, samples, cache),
offline mode, LLM failures, the run log, and the same answers on DuckDB and PostgreSQL."""

from __future__ import annotations

import json
import random
import socket
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from settings_util import settings_of
from skbutil import TOY_SCHEMA, toy_skb, write_skb

from afr.embed import make_embedder
from afr.load import load_skb_dir
from afr.methods.kar.expand import expanded_query, fit_context
from afr.methods.kar.graph import neighbourhoods
from afr.methods.kar.parse import parse_entities
from afr.pipeline.ask import Pipeline
from afr.settings import Settings
from afr.store import DuckDBStore, Store
from afr.vectors import embed_store

PARSE_PHRASE = "write down the entities"
EXPAND_PHRASE = "write short documents for a search engine"
QUESTION = "Which exceptions defined in the calendar module inherit from ValueError?"
GOLD = {"exception:calendar.IllegalMonthError", "exception:calendar.IllegalWeekdayError"}


def _loaded(store: Store, skb: Path) -> Store:
    load_skb_dir(store, skb, progress=False)
    embed_store(store, make_embedder("hash"), progress=False)
    return store


def _config(server: FakeOpenAI | None = None, *, url: str | None = None, **kw) -> Settings:
    if server is None and url is None:
        return settings_of(ask__method="kar", rerank__method="none", llm__offline=True, **kw)
    llm = {"base_url": url or server.base_url, "model": "fake", "api_key": "x",
           "max_retries": 0}
    return settings_of(ask__method="kar", rerank__method="none", llm=llm, **kw)


def _responder(parse: Reply | str, expand: Reply | str):
    def reply(request: dict) -> Reply:
        text = prompt_text(request)
        answer = parse if PARSE_PHRASE in text else expand if EXPAND_PHRASE in text else "?"
        return answer if isinstance(answer, Reply) else Reply(answer)
    return reply


def _kar_requests(server: FakeOpenAI, phrase: str) -> list[dict]:
    return [r for r in server.chat_requests() if phrase in prompt_text(r)]


# -- K1: the lenient parse ---------------------------------------------------------------


@pytest.fixture(scope="module")
def toy_schema(tmp_path_factory: pytest.TempPathFactory):
    store = DuckDBStore(tmp_path_factory.mktemp("toy") / "toy.duckdb")
    try:
        load_skb_dir(store, toy_skb(tmp_path_factory.mktemp("skb")), progress=False)
        yield store.skb_schema()
    finally:
        store.close()


@pytest.mark.parametrize("reply", [
    '[{"type": "author", "attributes": {"name": "Thomas Kipf"}}, '
    '{"type": "field", "attributes": {"name": "graph learning"}}]',
    "```json\n[{'type': 'author', 'attributes': {'name': 'Thomas Kipf'}},\n"
    " {'type': 'field', 'attributes': {'name': 'graph learning'}},]\n```",
    '<think>two entities</think>\n{"author": {"name": "Thomas Kipf"}}\n'
    '{"field": {"name": "graph learning"}}',
    'Here they are: {"type": "Author", "name": "Thomas Kipf"} and '
    '{"type": "field", "attributes": {"name": "graph learning", "extra": null}} — done.',
])
def test_parse_tolerates_sloppy_json(reply: str, toy_schema) -> None:
    entities = parse_entities(reply, toy_schema)
    assert [(e.node_type, e.attributes) for e in entities] == [
        ("author", {"name": "Thomas Kipf"}), ("field", {"name": "graph learning"})]
    assert entities[0].text.endswith("name: Thomas Kipf")


def test_parse_unknown_types_and_nothing(toy_schema) -> None:
    (entity,) = parse_entities('[{"type": "galaxy", "attributes": {"name": "M31"}}]',
                               toy_schema)
    assert entity.node_type is None and entity.written_type == "galaxy"  # any type
    for nothing in ("[]", "", "no entities here", "[{}]", "{'type': 'author'}"):
        assert parse_entities(nothing, toy_schema) == []


def test_expanded_query_and_prompt_budget() -> None:
    assert expanded_query("q?", []) == expanded_query("q?", ["  ", ""]) == "q?"
    assert expanded_query("q?", ["a", " b "]) == "q?\na\nb"
    docs = {1: ("A", "x" * 50), 2: ("B", "y" * 50), 3: ("C", "z" * 500)}
    fit = fit_context(docs, [("A-B", (1, 2)), ("A-C", (1, 3))], limit=200)
    assert fit.triples == ["A-B"] and [n for n, _ in fit.documents] == ["A", "B"]


# -- K3: the neighbourhood SQL against a brute-force walk --------------------------------


def _random_skb(directory: Path, seed: int = 7) -> tuple[Path, list[tuple[str, str, str]]]:
    rng = random.Random(seed)
    nodes = [{"id": f"p{i}", "type": "paper", "name": f"paper {i}", "text": f"text {i % 5}"}
             for i in range(30)]
    nodes += [{"id": f"a{i}", "type": "author", "name": f"author {i}"} for i in range(8)]
    edges: set[tuple[str, str, str]] = set()
    while len(edges) < 70:
        kind = rng.choice(["cites", "writes"])
        if kind == "cites":
            a, b = rng.sample(range(30), 2)
            edges.add((f"p{a}", "cites", f"p{b}"))
        else:
            edges.add((f"a{rng.randrange(8)}", "writes", f"p{rng.randrange(30)}"))
    # a hub: author 0 wrote everything
    edges |= {("a0", "writes", f"p{i}") for i in range(30)}
    edge_list = sorted(edges)
    return write_skb(directory, TOY_SCHEMA, nodes, edge_list), edge_list


def _brute_force(edges: list[tuple[int, int]], start: int, hops: int,
                 max_neighbours: int, max_mid_degree: int) -> tuple[dict[int, int], bool]:
    adj: dict[int, list[int]] = defaultdict(list)
    for s, d in edges:
        adj[s].append(d)
        adj[d].append(s)
    found = {nb: 1 for nb in adj[start] if nb != start}
    guarded = False
    if hops == 2:
        mids = set(found)
        total = sum(len(adj[m]) for m in mids)
        guarded = total > max_neighbours
        for mid in mids:
            if guarded and len(adj[mid]) > max_mid_degree:
                continue
            for nb in adj[mid]:
                if nb != start:
                    found.setdefault(nb, 2)
    return found, guarded


def test_neighbourhoods_match_a_brute_force_walk(store: Store, tmp_path: Path) -> None:
    skb, _ = _random_skb(tmp_path / "skb")
    _loaded(store, skb)
    edges = [(int(s), int(d)) for s, d in store.query("SELECT src, dst FROM edges")]
    starts = [int(r[0]) for r in store.query("SELECT id FROM nodes ORDER BY id")]
    # the defaults, one hop, and a hub guard that fires (the hub a0 has 30+ edges)
    for hops, max_neighbours, max_mid_degree in [(2, 50_000, 1000), (1, 50_000, 1000),
                                                 (2, 20, 6)]:
        hoods = neighbourhoods(store, starts, hops=hops, max_neighbours=max_neighbours,
                               max_mid_degree=max_mid_degree)
        some_guarded = False
        for start in starts:
            want, guarded = _brute_force(edges, start, hops, max_neighbours, max_mid_degree)
            assert dict(hoods.reached[start]) == want, (hops, start)
            assert (start in hoods.guarded) == guarded, (hops, start)
            some_guarded |= guarded
        assert some_guarded == (max_neighbours == 20)


# -- K1 and K6 against the scripted server -----------------------------------------------


def test_llm_parse_and_expansion(demo: DuckDBStore) -> None:
    parse = ("```json\n[{'type': 'module', 'attributes': {'name': 'calendar'}},\n"
             " {'type': 'exception', 'attributes': {'name': 'ValueError'}},]\n```")
    expand = "IllegalMonthError (exception), defined in calendar, inherits from ValueError."
    with FakeOpenAI(_responder(parse, expand)) as server:
        result = Pipeline(demo, _config(server)).ask(QUESTION)
        parses = _kar_requests(server, PARSE_PHRASE)
        expands = _kar_requests(server, EXPAND_PHRASE)
        assert len(parses) == 1 and len(expands) == 3  # n = 3 samples
        assert QUESTION in prompt_text(parses[0])
        assert "module: name" in prompt_text(parses[0])  # the document structures
        assert sorted(r["seed"] for r in expands) == [0, 1, 2]
        assert {r["temperature"] for r in expands} == {0.7}
        kar = result.kar.to_dict()
        assert kar["mode"] == "llm" and kar["expansion_source"] == "llm"
        sources = [(e["source"], e["node_type"]) for e in kar["entities"]]
        assert sources == [("question", None), ("llm", "module"), ("llm", "exception")]
        assert kar["triples"] and all(t["rendered"] in prompt_text(expands[0])
                                      for t in kar["triples"])
        assert QUESTION in prompt_text(expands[0])
        assert kar["expanded_query"] == "\n".join([QUESTION] + [expand] * 3)
        assert {a.ext_id for a in result.answers[:2]} == GOLD
        assert result.status == "ok" and result.llm_calls == 4
        # The rerun is free: both calls come from llm_calls.
        again = Pipeline(demo, _config(server)).ask(QUESTION)
        assert len(server.chat_requests()) == 4
        assert again.llm_new_calls == 0 and again.kar.to_dict()["expansions"] == kar["expansions"]
    rows = demo.query("SELECT entity, source, node_id FROM run_kar_entities "
                      "WHERE run_id = $r ORDER BY entity", {"r": result.run_id})
    assert [r.source for r in rows] == ["question", "llm", "llm"]
    triples = demo.query("SELECT count(*) FROM run_kar_triples WHERE run_id = $r",
                         {"r": result.run_id})[0][0]
    assert triples == len(kar["triples"])
    samples = demo.query("SELECT sample, source FROM run_kar_expansions WHERE run_id = $r "
                         "ORDER BY sample", {"r": result.run_id})
    assert [tuple(s) for s in samples] == [(1, "llm"), (2, "llm"), (3, "llm")]
    answers = demo.query("SELECT DISTINCT source FROM run_answers WHERE run_id = $r",
                         {"r": result.run_id})
    assert [a[0] for a in answers] == ["kar"]
    calls = demo.query("SELECT count(*) FROM llm_calls WHERE request::VARCHAR LIKE $p",
                       {"p": f"%{EXPAND_PHRASE}%"})[0][0]
    assert calls == 3


def test_empty_parse_and_empty_expansion(demo: DuckDBStore) -> None:
    with FakeOpenAI(_responder("[]", "<think>nothing to add</think>")) as server:
        result = Pipeline(demo, _config(server, llm__use_cache=False)).ask(QUESTION)
    kar = result.kar.to_dict()
    assert [e["source"] for e in kar["entities"]] == ["question"]  # E_q = {q}
    assert kar["expansions"] == [] and kar["expanded_query"] == QUESTION  # q′ = q
    assert result.status == "ok" and result.answers


# -- K7: the retriever of the expanded query ---------------------------------------------


def _k7_expected(demo: DuckDBStore, result, retriever: str) -> list[int]:
    """K7's list rebuilt from the public searches (offline): the question's own hybrid
    list, and the expanded query's vector and BM25 lists at the ranking settings' weights
    times half the expansion's trust, fused by scores."""
    from afr.lexical import bm25
    from afr.retrieval.fusion import fuse
    from afr.retrieval.lists import hybrid_fusion
    from afr.vectors.search import query_vector, search

    settings, types = result.settings, [result.target_type]
    query = result.kar.expanded_query
    vss = search(demo, "doc_rel", query_vector(demo, make_embedder("hash"), query),
                 100 if retriever == "hybrid" else 20, types=types)
    if retriever == "vss":
        return [n for n, _ in vss]
    lexical = bm25(demo, query, params=settings.bm25, types=types, k=100)
    if retriever == "bm25":
        return [n for n, _ in lexical[:20]]
    own = bm25(demo, QUESTION, params=settings.bm25, types=types, k=100)
    own_vss = search(demo, "doc_rel", query_vector(demo, make_embedder("hash"), QUESTION),
                     100, types=types)
    ranking, trust = settings.ranking, result.kar.expansion_weight
    assert 0.0 < trust <= 1.0
    own_hybrid = hybrid_fusion(own_vss, own, ranking, types)
    return [n for n, _ in fuse([(own_hybrid, ranking.lexical),
                                (vss, ranking.dense * trust / 2),
                                (lexical, ranking.lexical * trust / 2)],
                               method="linear")[:20]]


@pytest.mark.parametrize("retriever", ["vss", "bm25", "hybrid"])
def test_k7_ranks_the_expanded_query_with_the_retriever_set(demo: DuckDBStore,
                                                          retriever: str) -> None:
    """[kar] retriever: dense search as the paper, BM25 as its section 6.5, or both fused
    with the question's own BM25 list (the default)."""
    result = Pipeline(demo, _config(kar__retriever=retriever)).ask(QUESTION)
    assert result.settings.kar.retriever == retriever and result.target_type == "exception"
    assert [a.node_id for a in result.answers] == _k7_expected(demo, result, retriever)
    assert "kar_7_retrieval" in result.timings


def test_k7_leads_with_the_question_own_similarity(demo: DuckDBStore) -> None:
    """With the embedder trusted as much as BM25, q's own vector list (not q′'s) is the
    one fused into q's own hybrid list, at the full weight: the fused list is the one
    rebuilt from them."""
    result = Pipeline(demo, _config(ranking__dense=1.0)).ask(QUESTION)
    assert result.settings.ranking.dense == 1.0
    assert [a.node_id for a in result.answers] == _k7_expected(demo, result, "hybrid")


def test_kar_defaults_to_the_fused_retriever() -> None:
    from afr.settings import KarSettings
    assert KarSettings().retriever == "hybrid"


# -- offline, and an LLM that fails ----------------------------------------------------


def test_offline_mode(demo: DuckDBStore) -> None:
    result = Pipeline(demo, _config()).ask(QUESTION)
    kar = result.kar.to_dict()
    assert result.mode == "offline" and kar["mode"] == "offline"
    assert kar["expansion_source"] == "graph_prf"
    linked = [e["text"] for e in kar["entities"] if e["source"] == "offline"]
    assert linked == ["calendar", "valueerror"]
    assert "IllegalMonthError" in kar["expanded_query"]
    # the fused K7 (the default) leads with the question's own hybrid list, which ranks
    # both gold answers first; the expansion (at half its links' trust) keeps ValueError,
    # which the triples name, right below them; dense search alone ranks them first
    assert [a.ext_id for a in result.answers[:3]] == [
        "exception:calendar.IllegalWeekdayError", "exception:calendar.IllegalMonthError",
        "exception:builtins.ValueError"]
    assert all(a.source == "kar" for a in result.answers)
    assert all(a.provenance.get("kar_triples") for a in result.answers[:3])
    dense = Pipeline(demo, _config(kar__retriever="vss")).ask(QUESTION)
    assert {a.ext_id for a in dense.answers[:2]} == GOLD


FOOD_SCHEMA = {"name": "food", "description": "dishes", "directed": False,
               "candidate_types": ["dish"], "node_types": {"dish": {"description": "a dish"}},
               "edge_types": {"kind_of": {"source": "dish", "target": "dish",
                                          "label": "kind_of"}}}
TRIFLE = "Which cold dessert is layered with sponge cake, custard and sherry?"


@pytest.fixture(scope="module")
def food(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A trifle, the sponge cake the question mentions as an ordinary phrase, and six
    sponge cakes whose documents repeat the question's words: the walk around "sponge
    cake" finds them, and their words would bury the trifle BM25 ranks first."""
    from afr.lexical.index import build_lexical_index

    nodes = [{"id": "trifle", "type": "dish", "name": "trifle",
              "text": "a cold dessert of sponge cake soaked in sherry, layered with custard "
                      "and fruit"},
             {"id": "sponge", "type": "dish", "name": "sponge cake",
              "text": "a light cake made with flour, sugar and beaten eggs"}]
    edges = []
    for i, name in enumerate(["genoise", "angel food cake", "chiffon cake", "madeleine",
                              "ladyfinger", "swiss roll"]):
        nodes.append({"id": f"s{i}", "type": "dish", "name": name,
                      "text": f"{name}: a sponge cake, a light layered dessert cake soaked "
                              "and served cold with fruit"})
        edges.append((f"s{i}", "kind_of", "sponge"))
    nodes += [{"id": f"o{i}", "type": "dish", "name": f"stew {i}",
               "text": f"a hot meat stew number {i} with vegetables"} for i in range(20)]
    base = tmp_path_factory.mktemp("food")
    path = base / "food.duckdb"
    store = _loaded(DuckDBStore(path), write_skb(base / "skb", FOOD_SCHEMA, nodes, edges))
    build_lexical_index(store)
    store.close()
    yield path


def test_untrusted_links_do_not_expand(food: Path) -> None:
    """The graph-PRF leans only on trusted links: an ordinary phrase ("sponge cake") and
    the hashing embedder's nearest node are not, so nothing expands the question, K7 is
    its hybrid list (BM25's trifle first), and the trace says why. Expanding from the
    phrase (as before) put the sponge cakes above the trifle."""
    store = DuckDBStore(food)
    try:
        kar = Pipeline(store, _config()).ask(TRIFLE)
        hybrid = Pipeline(store, settings_of(ask__method="hybrid", rerank__method="none",
                                             llm__offline=True)).ask(TRIFLE)
    finally:
        store.close()
    trace = kar.kar.to_dict()
    trust = {e["text"]: e["trust"] for e in trace["entities"]}
    assert trust["sponge cake"] == 0.0 and 0.0 < trust[TRIFLE] < 0.01
    assert trace["triples"] and trace["expansion_source"] == "none"
    assert trace["expansion_weight"] == 0.0 and trace["expanded_query"] == TRIFLE
    assert "none of the links" in trace["expansion_note"]
    assert [a.ext_id for a in kar.answers] == [a.ext_id for a in hybrid.answers]
    assert kar.answers[0].ext_id == "trifle"
    shown = CliRunner().invoke(cli, ["--db", str(food), "ask", TRIFLE, "--method", "kar",
                                     "--offline", "--reranker", "none", "--explain"])
    assert shown.exit_code == 0, shown.output
    assert "trust 0.00: an ordinary phrase" in shown.output
    assert "expansion: no expansion: none of the links" in shown.output


def test_trusted_names_expand_by_their_confidence(demo: DuckDBStore) -> None:
    """Names the question writes ("calendar module", "ValueError") are trusted links: the
    expansion is built from their triples only (not from the hashing embedder's nearest
    node, trusted 0.002) and weighs their link confidence."""
    trace = Pipeline(demo, _config()).ask(QUESTION).kar.to_dict()
    named = [e for e in trace["entities"] if e["source"] == "offline"]
    assert named and all(0.4 <= e["trust"] <= 1.0 for e in named)
    assert trace["expansion_weight"] == max(e["trust"] for e in named)
    used = {e["entity"] for e in named}
    assert str(len([t for t in trace["triples"] if t["entity"] in used])) in \
        trace["expansion_note"]


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_llm_down_degrades_cleanly(demo: DuckDBStore) -> None:
    result = Pipeline(demo, _config(url=_closed_port(), llm__use_cache=False)).ask(QUESTION)
    assert result.status == "degraded" and result.llm_failure == "unreachable"
    (warning,) = [w for w in result.warnings if w.startswith("LLM")]
    assert "KAR entity parsing" in warning and "graph-PRF" in warning
    assert result.kar.to_dict()["expansion_source"] == "graph_prf"
    offline = Pipeline(demo, _config()).ask(QUESTION)
    assert [a.ext_id for a in result.answers] == [a.ext_id for a in offline.answers]


def test_failed_expansion_falls_back_to_graph_prf(demo: DuckDBStore) -> None:
    parse = '[{"type": "module", "attributes": {"name": "calendar"}}]'
    with FakeOpenAI(_responder(parse, Reply(status=400, error="no"))) as server:
        result = Pipeline(demo, _config(server, llm__use_cache=False)).ask(QUESTION)
    assert result.status == "degraded"
    assert any("KAR expansion" in w for w in result.warnings)
    assert result.kar.to_dict()["expansion_source"] == "graph_prf"
    assert "kar_6_llm_failed" in result.timings


def test_cli_kar_without_traceback(demo_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(cli, ["--db", str(demo_path), "ask", QUESTION, "--method", "kar",
                             "--offline", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["kar"]["mode"] == "offline" and data["answers"][0]["source"] == "kar"
    down = runner.invoke(cli, ["--db", str(demo_path), "ask", QUESTION, "--method", "kar",
                               "--llm-url", _closed_port(), "--llm-model", "m",
                               "--reranker", "none", "--explain"],
                         env={"AFR_LLM_API_KEY": "x"})
    assert down.exit_code == 3, down.output
    assert "Traceback" not in down.output and "graph-PRF" in down.output
    assert "triples kept" in down.output


# -- the same answers on both stores ---------------------------------------------------


def test_same_answers_on_duckdb_and_postgres(duck_store, pg_store, tmp_path: Path) -> None:
    skb, _ = _random_skb(tmp_path / "skb", seed=11)
    questions = ["Which paper cites paper 3 and was written by author 2?",
                 "Papers by author 5 about text 1", "Which paper is cited by paper 12?"]
    out = []
    for store in (duck_store, pg_store):
        _loaded(store, skb)
        pipe = Pipeline(store, _config(vectors__exact_search=True))
        runs = [pipe.ask(q) for q in questions]
        out.append([([a.ext_id for a in r.answers],
                     [t["rendered"] for t in r.kar.to_dict()["triples"]]) for r in runs])
        assert store.query("SELECT count(*) FROM run_kar_triples")[0][0] > 0
    assert out[0] == out[1]


def test_kar_settings_from_the_settings_file(tmp_path: Path, monkeypatch) -> None:
    from afr.errors import AfrError
    from afr.settings import KarSettings, resolve_settings

    path = tmp_path / "afr.toml"
    path.write_text("[kar]\nk = 5\nhops = 1\ntemperature = 0.2\n")
    monkeypatch.setenv("AFR_CONFIG", str(path))
    assert resolve_settings().settings.kar == KarSettings(k=5, hops=1, temperature=0.2)
    for bad in ("hops = 3", "k = 0", "kk = 1", "n = 'three'"):
        path.write_text(f"[kar]\n{bad}\n")
        with pytest.raises(AfrError, match="kar"):
            resolve_settings()
