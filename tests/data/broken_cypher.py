"""Broken LLM-style Cypher and the query graph ``fix_query_graph`` must make of it.

Each case: which schema it is written against (``SCHEMAS`` in tests/test_cypher_fix.py
builds them: the demo SKB, the three synthetic shapes, and ``*_directed`` copies of each
so reversed relations can be fixed), the Cypher text, the predicted target type (only
used when RETURN names nothing), the fixed graph in a compact form and the kinds of fix
expected (order-free). Symbols are ``var: (label, [(attribute, op, value), …])``,
triplets ``(head, edge, tail, directed)`` with head → tail along the arrow.
``dropped`` lists substrings of the reasons the graph must have dropped something for.

Categories: case, plural, separator, typo_label, typo_relation, relation_words,
reversed, property_mapped, property_dropped, missing_return, misspelled_name, syntax,
valid, mixed, wrong_type.
"""

from __future__ import annotations

import datetime as dt

# Attribute paths per node type of the demo SKB (from its nodes.jsonl.gz ``attrs``).
DEMO_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "module": ("is_package", "lines_of_code", "num_classes", "num_functions",
               "snapshot_release_date"),
    "class": ("num_methods", "num_bases", "lines_of_code", "decorators",
              "snapshot_release_date"),
    "function": ("num_parameters", "lines_of_code", "is_async", "decorators",
                 "snapshot_release_date"),
    "exception": ("num_methods", "num_bases", "lines_of_code", "decorators",
                  "snapshot_release_date", "builtin"),
}

CASES: list[dict] = []


def case(id: str, schema: str, category: str, cypher: str, *, target: str | None,
         symbols: dict[str, tuple[str | None, list[tuple]]],
         triplets: list[tuple[str, str | None, str, bool]] | None = None,
         fixes: list[str] | None = None, target_type: str | None = None,
         dropped: list[str] | None = None) -> None:
    CASES.append({
        "id": id, "schema": schema, "category": category, "cypher": cypher,
        "target_type": target_type,
        "expect": {"target": target, "symbols": symbols, "triplets": triplets or []},
        "fixes": fixes or [], "dropped": dropped or [],
    })


# -- wrong case ------------------------------------------------------------------------

case("demo-case-1", "demo", "case",
     "MATCH (m:Module {name: 'json'})-[:DEFINES_CLASS]->(c:Class) RETURN c.name",
     target="c",
     symbols={"m": ("module", [("name", "=", "json")]), "c": ("class", [])},
     triplets=[("m", "defines_class", "c", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("demo-case-2", "demo", "case",
     "MATCH (f:FUNCTION)<-[:Module_Defines_Function]-(m:MODULE {name: \"os.path\"})\n"
     "RETURN f",
     target="f",
     symbols={"f": ("function", []), "m": ("module", [("name", "=", "os.path")])},
     triplets=[("m", "defines_function", "f", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("prime-case-1", "prime", "case",
     "MATCH (d:DRUG)-[:INDICATION]->(x:Disease {name: 'chronic renal fibrosis'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "x": ("disease", [("name", "=", "chronic renal fibrosis")])},
     triplets=[("d", "indication", "x", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("mag-case-1", "mag", "case",
     "match (a:AUTHOR {name: 'Ann Lee'})-[:Writes]->(p:Paper) return p",
     target="p",
     symbols={"a": ("author", [("name", "=", "Ann Lee")]), "p": ("paper", [])},
     triplets=[("a", "writes", "p", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("amazon-case-1", "amazon", "case",
     "MATCH (p:PRODUCT)-[:HAS_COLOR]->(c:Color {name: 'matte teal'}) RETURN p.name",
     target="p",
     symbols={"p": ("product", []), "c": ("color", [("name", "=", "matte teal")])},
     triplets=[("p", "has_color", "c", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("mag-case-2", "mag", "case",
     "MATCH (p:paper)-[:PAPER_HAS_TOPIC_FIELD_OF_STUDY]->(f:Field_Of_Study {name: 'x'})"
     " RETURN p",
     target="p",
     symbols={"p": ("paper", []), "f": ("field_of_study", [("name", "=", "x")])},
     triplets=[("p", "has_topic", "f", True)],
     fixes=["node_label", "edge_label"])

# -- plurals ---------------------------------------------------------------------------

case("prime-plural-1", "prime", "plural",
     "MATCH (d:Drugs)-[:targets]->(g:Gene_Proteins {name: 'KRT14'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "g": ("gene/protein", [("name", "=", "KRT14")])},
     triplets=[("d", "target", "g", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("prime-plural-2", "prime", "plural",
     "MATCH (x:Diseases {name: 'lung sarcoma'})-[:phenotypes_present]->(e:Effect_Phenotypes)"
     " RETURN e",
     target="e",
     symbols={"x": ("disease", [("name", "=", "lung sarcoma")]),
              "e": ("effect/phenotype", [])},
     triplets=[("x", "phenotype present", "e", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("demo-plural-1", "demo", "plural",
     "MATCH (c:classes)-[:class_inherits]->(b:classes {name: 'dict'}) RETURN c",
     target="c",
     symbols={"c": ("class", []), "b": ("class", [("name", "=", "dict")])},
     triplets=[("c", "class_inherits", "b", True)],
     fixes=["node_label", "node_label"])
case("demo-plural-2", "demo", "plural",
     "MATCH (e:Exceptions)<-[:defines_exceptions]-(m:Modules {name: 'socket'}) RETURN e",
     target="e",
     symbols={"e": ("exception", []), "m": ("module", [("name", "=", "socket")])},
     triplets=[("m", "defines_exception", "e", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("mag-plural-1", "mag", "plural",
     "MATCH (a:Authors)-[:affiliated_with]->(i:Institutions {name: 'Univ. of Varn'})"
     " RETURN a",
     target="a",
     symbols={"a": ("author", []), "i": ("institution", [("name", "=", "Univ. of Varn")])},
     triplets=[("a", "affiliated_with", "i", True)],
     fixes=["node_label", "node_label"])
case("amazon-plural-1", "amazon", "plural",
     "MATCH (p:Products)-[:has_category]->(c:Categories {name: 'hiking gear'}) RETURN p",
     target="p",
     symbols={"p": ("product", []), "c": ("category", [("name", "=", "hiking gear")])},
     triplets=[("p", "has_category", "c", True)],
     fixes=["node_label", "node_label"])
case("mag-plural-2", "mag", "plural",
     "MATCH (p:Papers)-[:CITE]->(q:Papers {title: 'On Graphs'}) RETURN p",
     target="p",
     symbols={"p": ("paper", []), "q": ("paper", [("title", "=", "On Graphs")])},
     triplets=[("p", "cites", "q", True)],
     fixes=["node_label", "node_label", "edge_label"])

# -- separators and camel case ---------------------------------------------------------

case("prime-sep-1", "prime", "separator",
     "MATCH (g:gene_protein {name: 'TP53'})-[:ppi]-(h:GeneProtein) RETURN h",
     target="h",
     symbols={"g": ("gene/protein", [("name", "=", "TP53")]), "h": ("gene/protein", [])},
     triplets=[("g", "ppi", "h", False)],
     fixes=["node_label", "node_label"])
case("prime-sep-2", "prime", "separator",
     "MATCH (g:`Gene/Protein`)-[:interacts_with]->(b:BiologicalProcess {name: 'x'})"
     " RETURN g",
     target="g",
     symbols={"g": ("gene/protein", []), "b": ("biological_process", [("name", "=", "x")])},
     triplets=[("g", "interacts with", "b", True)],
     fixes=["node_label", "node_label", "edge_label"])
case("prime-sep-3", "prime", "separator",
     "MATCH (d:drug)-[:`OFF_LABEL_USE`]->(x:disease {name: 'acute gastric colitis'})"
     " RETURN d",
     target="d",
     symbols={"d": ("drug", []), "x": ("disease", [("name", "=", "acute gastric colitis")])},
     triplets=[("d", "off-label use", "x", True)],
     fixes=["edge_label"])
case("prime-sep-4", "prime", "separator",
     "MATCH (e:`effect phenotype`)<-[:SideEffect]-(d:drug {name: 'Zorvatinib'}) RETURN e",
     target="e",
     symbols={"e": ("effect/phenotype", []), "d": ("drug", [("name", "=", "Zorvatinib")])},
     triplets=[("d", "side effect", "e", True)],
     fixes=["node_label", "edge_label"])
case("mag-sep-1", "mag", "separator",
     "MATCH (p:paper)-[:hasTopic]->(f:FieldOfStudy {name: 'graph mining'}) RETURN p",
     target="p",
     symbols={"p": ("paper", []), "f": ("field_of_study", [("name", "=", "graph mining")])},
     triplets=[("p", "has_topic", "f", True)],
     fixes=["node_label", "edge_label"])
case("amazon-sep-1", "amazon", "separator",
     "MATCH (p:product)-[:`also-bought`]-(q:product {name: 'red felt hat 42'}) RETURN p",
     target="p",
     symbols={"p": ("product", []), "q": ("product", [("name", "=", "red felt hat 42")])},
     triplets=[("p", "also_bought", "q", False)],
     fixes=["edge_label"])
case("demo-sep-1", "demo", "separator",
     "MATCH (m:module)-[:`module imports module`]->(n:module {name: 'sys'}) RETURN m",
     target="m",
     symbols={"m": ("module", []), "n": ("module", [("name", "=", "sys")])},
     triplets=[("m", "imports", "n", True)],
     fixes=["edge_label"])

# -- misspelled labels -----------------------------------------------------------------

case("demo-typo-label-1", "demo", "typo_label",
     "MATCH (c:Clas)<-[:defines_class]-(m:module {name: 'os'}) RETURN c",
     target="c",
     symbols={"c": ("class", []), "m": ("module", [("name", "=", "os")])},
     triplets=[("m", "defines_class", "c", True)],
     fixes=["node_label_typo"])
case("demo-typo-label-2", "demo", "typo_label",
     "MATCH (f:fucntion)<-[:defines_function]-(m:modul {name: 'shutil'}) RETURN f",
     target="f",
     symbols={"f": ("function", []), "m": ("module", [("name", "=", "shutil")])},
     triplets=[("m", "defines_function", "f", True)],
     fixes=["node_label_typo", "node_label_typo"])
case("prime-typo-label-1", "prime", "typo_label",
     "MATCH (d:Drug)-[:indication]->(x:Diseaze {name: 'renal fibrosis'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "x": ("disease", [("name", "=", "renal fibrosis")])},
     triplets=[("d", "indication", "x", True)],
     fixes=["node_label", "node_label_typo"])
case("prime-typo-label-2", "prime", "typo_label",
     "MATCH (a:anatomy)-[:expression_present]->(g:gene_protien {name: 'KRT14'}) RETURN a",
     target="a",
     symbols={"a": ("anatomy", []), "g": ("gene/protein", [("name", "=", "KRT14")])},
     triplets=[("a", "expression present", "g", True)],
     fixes=["node_label_typo", "edge_label"])
case("mag-typo-label-1", "mag", "typo_label",
     "MATCH (a:Autor {name: 'Ann Lee'})-[:writes]->(p:Papr) RETURN p",
     target="p",
     symbols={"a": ("author", [("name", "=", "Ann Lee")]), "p": ("paper", [])},
     triplets=[("a", "writes", "p", True)],
     fixes=["node_label_typo", "node_label_typo"])
case("amazon-typo-label-1", "amazon", "typo_label",
     "MATCH (p:Prodcut)-[:has_brand]->(b:Brnad {name: 'Velocor'}) RETURN p",
     target="p",
     symbols={"p": ("product", []), "b": ("brand", [("name", "=", "Velocor")])},
     triplets=[("p", "has_brand", "b", True)],
     fixes=["node_label_typo", "node_label_typo"])
case("prime-words-label-1", "prime", "typo_label",
     "MATCH (d:Drug {name: 'Zorvatinib'})-[:target]->(g:Protein) RETURN g",
     target="g",
     symbols={"d": ("drug", [("name", "=", "Zorvatinib")]), "g": ("gene/protein", [])},
     triplets=[("d", "target", "g", True)],
     fixes=["node_label", "node_label_words"])
case("prime-words-label-2", "prime", "typo_label",
     "MATCH (x:Disease {name: 'lung sarcoma'})-[:phenotype_present]->(e:Phenotype) RETURN e",
     target="e",
     symbols={"x": ("disease", [("name", "=", "lung sarcoma")]), "e": ("effect/phenotype", [])},
     triplets=[("x", "phenotype present", "e", True)],
     fixes=["node_label", "node_label_words", "edge_label"])
case("prime-unknown-label-1", "prime", "typo_label",
     "MATCH (d:Drug)-[:target]->(c:Cell {name: 'T cell'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "c": ("Cell", [("name", "=", "T cell")])},
     triplets=[("d", "target", "c", True)],
     fixes=["node_label"])
case("demo-unknown-label-1", "demo", "typo_label",
     "MATCH (m:Method)<-[:defines_function]-(x:module {name: 'os'}) RETURN m",
     target="m",
     symbols={"m": ("Method", []), "x": ("module", [("name", "=", "os")])},
     triplets=[("x", "defines_function", "m", True)])

# -- misspelled relations --------------------------------------------------------------

case("prime-typo-rel-1", "prime", "typo_relation",
     "MATCH (d:drug)-[:drug_targest_gene_protein]->(g:gene/protein {name: 'KRT14'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "g": ("gene/protein", [("name", "=", "KRT14")])},
     triplets=[("d", "target", "g", True)],
     fixes=["edge_label_typo"])
case("prime-typo-rel-2", "prime", "typo_relation",
     "MATCH (d:drug)-[:contraindicaton]->(x:disease {name: 'y'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "x": ("disease", [("name", "=", "y")])},
     triplets=[("d", "contraindication", "x", True)],
     fixes=["edge_label_typo"])
case("demo-typo-rel-1", "demo", "typo_relation",
     "MATCH (c:class)-[:class_inherts_from_class]->(b:class {name: 'Mapping'}) RETURN c",
     target="c",
     symbols={"c": ("class", []), "b": ("class", [("name", "=", "Mapping")])},
     triplets=[("c", "class_inherits", "b", True)],
     fixes=["edge_label_typo"])
case("mag-typo-rel-1", "mag", "typo_relation",
     "MATCH (a:author)-[:afiliated_with]->(i:institution {name: 'Tarn Institute'}) RETURN a",
     target="a",
     symbols={"a": ("author", []), "i": ("institution", [("name", "=", "Tarn Institute")])},
     triplets=[("a", "affiliated_with", "i", True)],
     fixes=["edge_label_typo"])
case("amazon-typo-rel-1", "amazon", "typo_relation",
     "MATCH (p:product)-[:also_veiwed]-(q:product {name: 'blue wool scarf 7'}) RETURN p",
     target="p",
     symbols={"p": ("product", []), "q": ("product", [("name", "=", "blue wool scarf 7")])},
     triplets=[("p", "also_viewed", "q", False)],
     fixes=["edge_label_typo"])
case("prime-unknown-rel-1", "prime", "typo_relation",
     "MATCH (d:drug)-[:TREATS]->(x:disease {name: 'flu'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "x": ("disease", [("name", "=", "flu")])},
     triplets=[("d", "TREATS", "x", True)])

# -- relation named by its words between the two node types ----------------------------

case("prime-words-rel-1", "prime", "relation_words",
     "MATCH (g:gene/protein {name: 'TP53'})-[:INTERACTS_WITH]-(h:gene/protein) RETURN h",
     target="h",
     symbols={"g": ("gene/protein", [("name", "=", "TP53")]), "h": ("gene/protein", [])},
     triplets=[("g", "ppi", "h", False)],
     fixes=["edge_label_words"])
case("prime-words-rel-2", "prime", "relation_words",
     "MATCH (d:drug)-[:HAS_SIDE_EFFECT]->(e:effect/phenotype {name: 'mild rash'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "e": ("effect/phenotype", [("name", "=", "mild rash")])},
     triplets=[("d", "side effect", "e", True)],
     fixes=["edge_label_words"])
case("prime-words-rel-3", "prime", "relation_words",
     "MATCH (d:drug)-[:INDICATED_FOR]->(x:disease {name: 'renal fibrosis'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "x": ("disease", [("name", "=", "renal fibrosis")])},
     triplets=[("d", "indication", "x", True)],
     fixes=["edge_label_words"])
case("demo-words-rel-1", "demo", "relation_words",
     "MATCH (c:class)-[:INHERITS_FROM]->(b:class {name: 'dict'}) RETURN c",
     target="c",
     symbols={"c": ("class", []), "b": ("class", [("name", "=", "dict")])},
     triplets=[("c", "class_inherits", "b", True)],
     fixes=["edge_label_words"])
case("amazon-words-rel-1", "amazon", "relation_words",
     "MATCH (p:product)-[:BRAND]->(b:brand {name: 'Velocor'}) RETURN p",
     target="p",
     symbols={"p": ("product", []), "b": ("brand", [("name", "=", "Velocor")])},
     triplets=[("p", "has_brand", "b", True)],
     fixes=["edge_label_words"])
case("mag-words-rel-1", "mag", "relation_words",
     "MATCH (p:paper)-[:TOPIC]->(f:field_of_study {name: 'graph mining'}) RETURN p",
     target="p",
     symbols={"p": ("paper", []), "f": ("field_of_study", [("name", "=", "graph mining")])},
     triplets=[("p", "has_topic", "f", True)],
     fixes=["edge_label_words"])
case("prime-words-rel-none", "prime", "relation_words",
     "MATCH (d:drug)-[:INTERACTS_WITH]->(g:gene/protein {name: 'KRT14'}) RETURN d",
     target="d",
     symbols={"d": ("drug", []), "g": ("gene/protein", [("name", "=", "KRT14")])},
     triplets=[("d", "interacts with", "g", True)],
     fixes=["edge_label"])

# -- reversed relations ----------------------------------------------------------------

case("demo-reversed-1", "demo_directed", "reversed",
     "MATCH (c:class)-[:defines_class]->(m:module {name: 'json'}) RETURN c",
     target="c",
     symbols={"c": ("class", []), "m": ("module", [("name", "=", "json")])},
     triplets=[("m", "defines_class", "c", True)],
     fixes=["direction"])
case("demo-reversed-2", "demo_directed", "reversed",
     "MATCH (m:module)<-[:module_defines_exception]-(e:exception {name: 'ValueError'})"
     " RETURN m",
     target="m",
     symbols={"m": ("module", []), "e": ("exception", [("name", "=", "ValueError")])},
     triplets=[("m", "module_defines_exception", "e", True)],
     fixes=["direction"])
case("prime-reversed-1", "prime_directed", "reversed",
     "MATCH (g:GeneProtein {name: 'KRT14'})-[:TARGET]->(d:Drug) RETURN d",
     target="d",
     symbols={"g": ("gene/protein", [("name", "=", "KRT14")]), "d": ("drug", [])},
     triplets=[("d", "target", "g", True)],
     fixes=["node_label", "node_label", "edge_label", "direction"])
case("prime-reversed-2", "prime_directed", "reversed",
     "MATCH (x:disease)-[:indication]->(d:drug {name: 'Zorvatinib'}) RETURN x",
     target="x",
     symbols={"x": ("disease", []), "d": ("drug", [("name", "=", "Zorvatinib")])},
     triplets=[("d", "indication", "x", True)],
     fixes=["direction"])
case("prime-reversed-3", "prime_directed", "reversed",
     "MATCH (g:gene/protein)-[:expression_present]->(a:anatomy {name: 'upper liver lobe'})"
     " RETURN g",
     target="g",
     symbols={"g": ("gene/protein", []), "a": ("anatomy", [("name", "=", "upper liver lobe")])},
     triplets=[("a", "expression present", "g", True)],
     fixes=["edge_label", "direction"])
case("mag-reversed-1", "mag_directed", "reversed",
     "MATCH (p:paper)-[:writes]->(a:author {name: 'Ann Lee'}) RETURN p",
     target="p",
     symbols={"p": ("paper", []), "a": ("author", [("name", "=", "Ann Lee")])},
     triplets=[("a", "writes", "p", True)],
     fixes=["direction"])
case("mag-reversed-2", "mag_directed", "reversed",
     "MATCH (p:paper)<-[:has_topic]-(f:field_of_study {name: 'graph mining'}) RETURN p",
     target="p",
     symbols={"p": ("paper", []), "f": ("field_of_study", [("name", "=", "graph mining")])},
     triplets=[("p", "has_topic", "f", True)],
     fixes=["direction"])
case("mag-reversed-unlabelled", "mag_directed", "reversed",
     "MATCH (x)-[:writes]->(a:author {name: 'Ann Lee'}) RETURN x",
     target="x",
     symbols={"x": (None, []), "a": ("author", [("name", "=", "Ann Lee")])},
     triplets=[("a", "writes", "x", True)],
     fixes=["direction"])
case("amazon-reversed-1", "amazon_directed", "reversed",
     "MATCH (b:brand {name: 'Velocor'})-[:has_brand]->(p:product) RETURN p",
     target="p",
     symbols={"b": ("brand", [("name", "=", "Velocor")]), "p": ("product", [])},
     triplets=[("p", "has_brand", "b", True)],
     fixes=["direction"])
case("mag-same-type-not-flipped", "mag_directed", "reversed",
     "MATCH (p:paper)<-[:cites]-(q:paper {title: 'On Graphs'}) RETURN p",
     target="p",
     symbols={"p": ("paper", []), "q": ("paper", [("title", "=", "On Graphs")])},
     triplets=[("q", "cites", "p", True)])
case("mag-undirected-pattern", "mag_directed", "reversed",
     "MATCH (p:paper)-[:writes]-(a:author {name: 'Ann Lee'}) RETURN p",
     target="p",
     symbols={"p": ("paper", []), "a": ("author", [("name", "=", "Ann Lee")])},
     triplets=[("p", "writes", "a", False)])
case("prime-reversed-undirected-skb", "prime", "reversed",
     "MATCH (x:disease)-[:indication]->(d:drug {name: 'Zorvatinib'}) RETURN x",
     target="x",
     symbols={"x": ("disease", []), "d": ("drug", [("name", "=", "Zorvatinib")])},
     triplets=[("x", "indication", "d", True)])
case("demo-reversed-chain", "demo_directed", "reversed",
     "MATCH (b:class {name: 'Exception'})<-[:class_inherits]-(c:class)"
     "-[:defines_class]->(m:module) RETURN m",
     target="m",
     symbols={"b": ("class", [("name", "=", "Exception")]), "c": ("class", []),
              "m": ("module", [])},
     triplets=[("c", "class_inherits", "b", True), ("m", "defines_class", "c", True)],
     fixes=["direction"])

# -- properties: mappable --------------------------------------------------------------

case("mag-prop-1", "mag", "property_mapped",
     "MATCH (p:paper)-[:has_topic]->(f:field_of_study {name: 'graph mining'})\n"
     "WHERE p.publication_year = 2015 RETURN p",
     target="p",
     symbols={"p": ("paper", [("year", "=", 2015)]),
              "f": ("field_of_study", [("name", "=", "graph mining")])},
     triplets=[("p", "has_topic", "f", True)],
     fixes=["property"])
case("mag-prop-2", "mag", "property_mapped",
     "MATCH (a:author)-[:writes]->(p:paper {title: 'On Graphs'}) WHERE a.hIndex >= 20 RETURN a",
     target="a",
     symbols={"a": ("author", [("h_index", ">=", 20)]), "p": ("paper", [("title", "=", "On Graphs")])},
     triplets=[("a", "writes", "p", True)],
     fixes=["property"])
case("amazon-prop-1", "amazon", "property_mapped",
     "MATCH (p:product)-[:has_brand]->(b:brand {name: 'Velocor'})\n"
     "WHERE p.Price < 50 AND p.avg_rating >= 4.0 RETURN p",
     target="p",
     symbols={"p": ("product", [("price", "<", 50), ("rating", ">=", 4.0)]),
              "b": ("brand", [("name", "=", "Velocor")])},
     triplets=[("p", "has_brand", "b", True)],
     fixes=["property", "property"])
case("amazon-prop-2", "amazon", "property_mapped",
     "MATCH (p:product) WHERE p.review_count > 100 AND p.raitng >= 4.5 RETURN p",
     target="p",
     symbols={"p": ("product", [("reviews", ">", 100), ("rating", ">=", 4.5)])},
     fixes=["property", "property_typo"])
case("prime-prop-1", "prime", "property_mapped",
     "MATCH (d:drug) WHERE d.weight > 500 AND d.drug_name CONTAINS 'tinib' RETURN d",
     target="d",
     symbols={"d": ("drug", [("molecular_weight", ">", 500), ("name", "CONTAINS", "tinib")])},
     fixes=["property", "property"])
case("prime-prop-2", "prime", "property_mapped",
     "MATCH (g:gene/protein) WHERE g.Chromosome = 'chr7' AND g.lenght_bp < 5000 RETURN g",
     target="g",
     symbols={"g": ("gene/protein", [("chromosome", "=", "chr7"), ("length_bp", "<", 5000)])},
     fixes=["property", "property_typo"])
case("demo-prop-1", "demo", "property_mapped",
     "MATCH (c:class)<-[:defines_class]-(m:module {name: 'json'})\n"
     "WHERE c.numMethods > 3 RETURN c",
     target="c",
     symbols={"c": ("class", [("num_methods", ">", 3)]), "m": ("module", [("name", "=", "json")])},
     triplets=[("m", "defines_class", "c", True)],
     fixes=["property"])
case("demo-prop-2", "demo", "property_mapped",
     "MATCH (f:function) WHERE f.async = true AND f.parameters >= 3 RETURN f",
     target="f",
     symbols={"f": ("function", [("is_async", "=", True), ("num_parameters", ">=", 3)])},
     fixes=["property", "property"])
case("mag-prop-title", "mag", "property_mapped",
     "MATCH (p:paper {paper_title: 'On Graphs'})<-[:cites]-(q:paper) RETURN q",
     target="q",
     symbols={"p": ("paper", [("title", "=", "On Graphs")]), "q": ("paper", [])},
     triplets=[("q", "cites", "p", True)],
     fixes=["property"])

# -- properties: not mappable ----------------------------------------------------------

case("prime-prop-drop-1", "prime", "property_dropped",
     "MATCH (d:drug)-[:indication]->(x:disease {name: 'flu'}) WHERE d.approval_year = 2001"
     " RETURN d",
     target="d",
     symbols={"d": ("drug", []), "x": ("disease", [("name", "=", "flu")])},
     triplets=[("d", "indication", "x", True)],
     fixes=["dropped_property"], dropped=["no attribute like 'approval_year'"])
case("prime-prop-drop-2", "prime", "property_dropped",
     "MATCH (e:effect/phenotype) WHERE e.severity = 'high' RETURN e",
     target="e",
     symbols={"e": ("effect/phenotype", [])},
     fixes=["dropped_property"], dropped=["no attribute like 'severity'"])
case("amazon-prop-drop-1", "amazon", "property_dropped",
     "MATCH (p:product)-[:has_brand]->(b:brand) WHERE b.brand_name = 'Velocor'"
     " AND p.brand_name = 'Velocor' RETURN p",
     target="p",
     symbols={"p": ("product", []), "b": ("brand", [("name", "=", "Velocor")])},
     triplets=[("p", "has_brand", "b", True)],
     fixes=["property", "dropped_property"], dropped=["no attribute like 'brand_name'"])
case("demo-prop-drop-1", "demo", "property_dropped",
     "MATCH (m:module) WHERE m.author = 'Guido' AND m.is_package = true RETURN m",
     target="m",
     symbols={"m": ("module", [("is_package", "=", True)])},
     fixes=["dropped_property"], dropped=["no attribute like 'author'"])
case("amazon-prop-drop-2", "amazon", "property_dropped",
     "MATCH (p:product) WHERE p.release_year = 2020 RETURN p",
     target="p",
     symbols={"p": ("product", [])},
     fixes=["dropped_property"], dropped=["no attribute like 'release_year'"])
case("prime-prop-unlabelled-kept", "prime", "property_dropped",
     "MATCH (d:drug)-[:target]->(g) WHERE g.severity = 'high' RETURN d",
     target="d",
     symbols={"d": ("drug", []), "g": (None, [("severity", "=", "high")])},
     triplets=[("d", "target", "g", True)])

# -- missing RETURN --------------------------------------------------------------------

case("prime-return-1", "prime", "missing_return",
     "MATCH (d:drug)-[:target]->(g:gene/protein)", target_type="drug",
     target="d",
     symbols={"d": ("drug", []), "g": ("gene/protein", [])},
     triplets=[("d", "target", "g", True)],
     fixes=["target"], dropped=["no usable RETURN: target set to d"])
case("mag-return-1", "mag", "missing_return",
     "MATCH (p:paper)-[:writes]-(a:author) WHERE a.h_index > 10 RETURN author.name",
     target_type="paper",
     target="p",
     symbols={"p": ("paper", []), "a": ("author", [("h_index", ">", 10)])},
     triplets=[("p", "writes", "a", False)],
     fixes=["target"], dropped=["RETURN names no node", "no usable RETURN"])
case("amazon-return-1", "amazon", "missing_return",
     "MATCH (p:Product)-[:has_color]->(c:color)", target_type="Product",
     target="p",
     symbols={"p": ("product", []), "c": ("color", [])},
     triplets=[("p", "has_color", "c", True)],
     fixes=["node_label", "target"])
case("demo-return-1", "demo", "missing_return",
     "MATCH (e:exception)<-[:defines_exception]-(m:module) RETURN", target_type="exception",
     target="e",
     symbols={"e": ("exception", []), "m": ("module", [])},
     triplets=[("m", "defines_exception", "e", True)],
     fixes=["target"])
case("prime-return-already", "prime", "missing_return",
     "MATCH (g:gene/protein)<-[:target]-(d:drug {name: 'Zorvatinib'})", target_type="gene/protein",
     target="g",
     symbols={"g": ("gene/protein", []), "d": ("drug", [("name", "=", "Zorvatinib")])},
     triplets=[("d", "target", "g", True)],
     dropped=["no usable RETURN: target set to g"])
case("prime-return-ambiguous", "prime", "missing_return",
     "MATCH (d:drug)-[:synergistic_interaction]-(e:drug)-[:target]->(g:gene/protein)",
     target_type="drug",
     target="g",
     symbols={"d": ("drug", []), "e": ("drug", []), "g": ("gene/protein", [])},
     triplets=[("d", "synergistic interaction", "e", False), ("e", "target", "g", True)],
     fixes=["edge_label"])
case("mag-return-given", "mag", "missing_return",
     "MATCH (p:paper)-[:writes]-(a:author) RETURN a", target_type="paper",
     target="a",
     symbols={"p": ("paper", []), "a": ("author", [])},
     triplets=[("p", "writes", "a", False)])

# -- misspelled entity names: kept (name matching is step 4) ---------------------------

case("prime-name-1", "prime", "misspelled_name",
     "MATCH (d:Drug {name: 'Zorvatnib'})-[:target]->(g:gene/protein) RETURN g",
     target="g",
     symbols={"d": ("drug", [("name", "=", "Zorvatnib")]), "g": ("gene/protein", [])},
     triplets=[("d", "target", "g", True)],
     fixes=["node_label"])
case("mag-name-1", "mag", "misspelled_name",
     "MATCH (a:author {name: 'An Lee'})-[:writes]->(p:paper) RETURN p",
     target="p",
     symbols={"a": ("author", [("name", "=", "An Lee")]), "p": ("paper", [])},
     triplets=[("a", "writes", "p", True)])
case("demo-name-1", "demo", "misspelled_name",
     "MATCH (m:module {name: 'colections'})-[:defines_class]->(c:Classes) RETURN c",
     target="c",
     symbols={"m": ("module", [("name", "=", "colections")]), "c": ("class", [])},
     triplets=[("m", "defines_class", "c", True)],
     fixes=["node_label"])
case("amazon-name-1", "amazon", "misspelled_name",
     "MATCH (p:product)-[:has_brand]->(b:brand) WHERE b.name IN ['Velcor', 'Velocorr']"
     " RETURN p",
     target="p",
     symbols={"p": ("product", []), "b": ("brand", [("name", "IN", ("Velcor", "Velocorr"))])},
     triplets=[("p", "has_brand", "b", True)])
case("prime-name-label-lookalike", "prime", "misspelled_name",
     "MATCH (x:disease {name: 'Drugs'})<-[:indication]-(d:drug) RETURN d",
     target="d",
     symbols={"x": ("disease", [("name", "=", "Drugs")]), "d": ("drug", [])},
     triplets=[("d", "indication", "x", True)])

# -- syntax errors: the parser drops; fixes invent nothing -----------------------------

case("prime-syntax-1", "prime", "syntax",
     "MATCH (d:Drug)-[:TARGETS->(g:Gene) RETURN d",
     target="d",
     symbols={"d": ("drug", [])},
     fixes=["node_label"], dropped=["relationship not closed"])
case("prime-syntax-2", "prime", "syntax",
     "MATCH (d:Drugs WHERE d.name = 'x' RETURN d",
     target="d",
     symbols={"d": (None, [("name", "=", "x")])},
     dropped=["node pattern not closed"])
case("prime-syntax-3", "prime", "syntax",
     "MATCH d:Drug RETURN d", target_type="drug",
     target=None, symbols={},
     dropped=["a pattern must start with a node"])
case("mag-syntax-1", "mag", "syntax",
     "MATCH (p:Papers)-[:CITES]->(q:Paper {title: 'Deep Nets'}) WHERE p.year >> 2010 RETURN p",
     target="p",
     symbols={"p": ("paper", []), "q": ("paper", [("title", "=", "Deep Nets")])},
     triplets=[("p", "cites", "q", True)],
     fixes=["node_label", "node_label", "edge_label"], dropped=["value not understood"])
case("amazon-syntax-1", "amazon", "syntax",
     "MATCH (p:Product)-[:HAS_BRAND]->(b:Brand {name: 'Acme'}) WHERE p.price < RETURN p",
     target="p",
     symbols={"p": ("product", []), "b": ("brand", [("name", "=", "Acme")])},
     triplets=[("p", "has_brand", "b", True)],
     fixes=["node_label", "node_label", "edge_label"], dropped=["value not understood"])
case("demo-syntax-1", "demo", "syntax",
     "SELECT * FROM classes WHERE name = 'dict'", target_type="class",
     target=None, symbols={},
     dropped=["no MATCH clause found"])
case("demo-syntax-2", "demo", "syntax",
     "MATCH (c:Class)-[:INHERITS_FROM]->(b:Class {name: 'dict'}) RETURN",
     target="c",
     symbols={"c": ("class", []), "b": ("class", [("name", "=", "dict")])},
     triplets=[("c", "class_inherits", "b", True)],
     fixes=["node_label", "node_label", "edge_label_words"], dropped=["RETURN names nothing"])
case("mag-syntax-2", "mag", "syntax",
     "```cypher\nMATCH (a:Author {name: 'Ann Lee'}))-[:WROTE]->(p:Paper) RETURN p\n```",
     target="a",
     symbols={"a": ("author", [("name", "=", "Ann Lee")])},
     fixes=["node_label"], dropped=["unexpected text in a pattern"])

# -- valid queries: no fixes -----------------------------------------------------------

case("demo-valid-1", "demo", "valid",
     "MATCH (m:module {name: 'json'})-[:defines_function]->(f:function)\n"
     "WHERE f.num_parameters >= 2 RETURN f",
     target="f",
     symbols={"m": ("module", [("name", "=", "json")]),
              "f": ("function", [("num_parameters", ">=", 2)])},
     triplets=[("m", "defines_function", "f", True)])
case("prime-valid-1", "prime", "valid",
     "MATCH (d:drug)-[:drug_targets_gene_protein]->(g:`gene/protein` {name: 'KRT14'})\n"
     "WHERE d.approval_date >= date('2001-01-01') RETURN d",
     target="d",
     symbols={"d": ("drug", [("approval_date", ">=", dt.date(2001, 1, 1))]),
              "g": ("gene/protein", [("name", "=", "KRT14")])},
     triplets=[("d", "drug_targets_gene_protein", "g", True)])
case("mag-valid-1", "mag_directed", "valid",
     "MATCH (a:author {name: 'Ann Lee'})-[:writes]->(p:paper)-[:cites]->(q:paper)\n"
     "WHERE p.year = 2015 RETURN q",
     target="q",
     symbols={"a": ("author", [("name", "=", "Ann Lee")]), "p": ("paper", [("year", "=", 2015)]),
              "q": ("paper", [])},
     triplets=[("a", "writes", "p", True), ("p", "cites", "q", True)])
case("amazon-valid-1", "amazon_directed", "valid",
     "MATCH (p:product)-[:product_has_brand_brand]->(b:brand {name: 'Velocor'}),\n"
     "      (p)-[:has_color]->(c:color {name: 'matte teal'})\n"
     "WHERE p.price < 100 RETURN p",
     target="p",
     symbols={"p": ("product", [("price", "<", 100)]), "b": ("brand", [("name", "=", "Velocor")]),
              "c": ("color", [("name", "=", "matte teal")])},
     triplets=[("p", "product_has_brand_brand", "b", True), ("p", "has_color", "c", True)])

# -- several mistakes at once ----------------------------------------------------------

case("prime-mixed-1", "prime_directed", "mixed",
     "MATCH (g:Genes {name: 'KRT14'})<-[:ASSOCIATED_WITH]-(x:Diseases)\n"
     "WHERE x.prevalence > 100 RETURN x",
     target="x",
     symbols={"g": ("gene/protein", [("name", "=", "KRT14")]),
              "x": ("disease", [("prevalence_per_100k", ">", 100)])},
     triplets=[("g", "associated with", "x", True)],
     fixes=["node_label_words", "node_label", "edge_label", "direction", "property"])
case("mag-mixed-1", "mag_directed", "mixed",
     "MATCH (p:Papers)-[:WRITTEN_BY]->(a:Autor {name: 'Ann Lee'}) WHERE p.yaer = 2019",
     target_type="paper",
     target="p",
     symbols={"p": ("paper", [("year", "=", 2019)]), "a": ("author", [("name", "=", "Ann Lee")])},
     triplets=[("p", "WRITTEN_BY", "a", True)],
     fixes=["node_label", "node_label_typo", "property_typo"])
case("amazon-mixed-1", "amazon_directed", "mixed",
     "MATCH (c:Colors {name: 'matte teal'})-[:HasColor]->(p:Products)\n"
     "WHERE p.cost < 30 AND p.stars >= 4",
     target_type="product",
     target="p",
     symbols={"c": ("color", [("name", "=", "matte teal")]), "p": ("product", [])},
     triplets=[("p", "has_color", "c", True)],
     fixes=["node_label", "node_label", "edge_label", "direction", "dropped_property",
            "dropped_property"],
     dropped=["no attribute like 'cost'", "no attribute like 'stars'"])
case("demo-mixed-1", "demo_directed", "mixed",
     "MATCH (c:Classes)-[:Defines_Class]->(m:Modul {name: 'collections'})\n"
     "WHERE c.num_method > 5 AND c.docstring CONTAINS 'ordered' RETURN c.name",
     target="c",
     symbols={"c": ("class", [("num_methods", ">", 5)]),
              "m": ("module", [("name", "=", "collections")])},
     triplets=[("m", "defines_class", "c", True)],
     fixes=["node_label", "node_label_typo", "edge_label", "direction", "property",
            "dropped_property"],
     dropped=["no attribute like 'docstring'"])

# -- a valid label its relations cannot join: the one type they can --------------------

case("prime-edges-1", "prime", "wrong_type",
     "MATCH (y:drug)-[:target]->(x:disease {name: 'KRT14'}) RETURN y",
     target="y", target_type="drug",
     symbols={"y": ("drug", []), "x": ("gene/protein", [("name", "=", "KRT14")])},
     triplets=[("y", "target", "x", True)],
     fixes=["node_label_edges"])
case("prime-edges-2", "prime", "wrong_type",
     "MATCH (y:exposure)-[:indication]->(x:disease {name: 'chronic renal fibrosis'}) "
     "RETURN y",
     target="y", target_type="drug",
     symbols={"y": ("drug", []), "x": ("disease", [("name", "=", "chronic renal fibrosis")])},
     triplets=[("y", "indication", "x", True)],
     fixes=["node_label_edges"])
case("mag-edges-1", "mag", "wrong_type",
     "MATCH (p:author)-[:has_topic]->(f:field_of_study {name: 'graph theory'}) RETURN p",
     target="p", target_type="paper",
     symbols={"p": ("paper", []), "f": ("field_of_study", [("name", "=", "graph theory")])},
     triplets=[("p", "has_topic", "f", True)],
     fixes=["node_label_edges"])
case("amazon-edges-1", "amazon", "wrong_type",
     "MATCH (p:product)-[:has_brand]->(b:color {name: 'Acme'}) RETURN p",
     target="p", target_type="product",
     symbols={"p": ("product", []), "b": ("brand", [("name", "=", "Acme")])},
     triplets=[("p", "has_brand", "b", True)],
     fixes=["node_label_edges"])
# Without a predicted target type, the target keeps its label (no guess).
case("mag-edges-2", "mag", "wrong_type",
     "MATCH (p:author)-[:has_topic]->(f:field_of_study {name: 'graph theory'}) RETURN p",
     target="p",
     symbols={"p": ("author", []), "f": ("field_of_study", [("name", "=", "graph theory")])},
     triplets=[("p", "has_topic", "f", True)])
