"""Realistic LLM replies to the step-2 prompt, each with the query graph it must parse to.

Written by hand for this project, in the shapes models really produce for STaRK-like
questions over PRIME (labels with "/" and spaces), MAG and AMAZON, and over the bundled
demo SKB (python-stdlib): fences, prose, reasoning, lowercase keywords, odd names, cut-off
replies. Every case lists

- ``text``: the reply as the LLM wrote it;
- ``target``: the variable after RETURN (or the fallback the parser must choose);
- ``symbols``: var → (label, [(attribute, op, value), …]) — *all* symbols, in any order,
  each with its conditions in the order written; anonymous nodes are ``_anon1``, ``_anon2``
  … in order of appearance;
- ``triplets``: (head, edge, tail, directed, min_hops, max_hops), in order of appearance;
- ``dropped``: one substring of the reason for each note the parser must record, in order
  (the number of notes must match exactly).
"""

from __future__ import annotations

import datetime as dt

D = dt.date

CASES: list[dict] = [
    # ---------------------------------------------------------------- PRIME
    {
        "id": "prime-fenced-basic",
        "text": '```cypher\nMATCH (y:drug)-[:indication]->(x:disease {name: "asthma"})\n'
                "RETURN y\n```",
        "target": "y",
        "symbols": {"y": ("drug", []), "x": ("disease", [("name", "=", "asthma")])},
        "triplets": [("y", "indication", "x", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-backticked-slash-labels",
        "text": "MATCH (y:`gene/protein`)-[:`ppi`]-(x:`gene/protein` {name: 'TP53'})\nRETURN y",
        "target": "y",
        "symbols": {"y": ("gene/protein", []),
                    "x": ("gene/protein", [("name", "=", "TP53")])},
        "triplets": [("y", "ppi", "x", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-bare-slash-labels-backward-arrow",
        "text": 'MATCH (y:gene/protein)<-[:drug_targets_gene/protein]-(d:drug {name: "Imatinib"})'
                " RETURN y",
        "target": "y",
        "symbols": {"y": ("gene/protein", []), "d": ("drug", [("name", "=", "Imatinib")])},
        "triplets": [("d", "drug_targets_gene/protein", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-bare-label-with-space",
        "text": "MATCH (p:effect/phenotype)-[:phenotype present]-(d:disease "
                "{name: 'Marfan syndrome'}) RETURN p",
        "target": "p",
        "symbols": {"p": ("effect/phenotype", []),
                    "d": ("disease", [("name", "=", "Marfan syndrome")])},
        "triplets": [("p", "phenotype present", "d", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-apostrophe-in-double-quotes-return-distinct-as",
        "text": 'MATCH (y:drug)-[:indication]->(d:disease {name: "Alzheimer\'s disease"})\n'
                "RETURN DISTINCT y.name AS drug",
        "target": "y",
        "symbols": {"y": ("drug", []),
                    "d": ("disease", [("name", "=", "Alzheimer's disease")])},
        "triplets": [("y", "indication", "d", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-unescaped-apostrophe-and-with-inside-type",
        "text": "MATCH (g:gene/protein)-[:associated with]-(d:disease {name: 'Crohn's disease'})"
                "\nRETURN g",
        "target": "g",
        "symbols": {"g": ("gene/protein", []),
                    "d": ("disease", [("name", "=", "Crohn's disease")])},
        "triplets": [("g", "associated with", "d", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-backslash-escaped-quote",
        "text": "MATCH (d:disease {name: 'Hodgkin\\'s lymphoma'})<-[:indication]-(y:drug)\n"
                "RETURN y",
        "target": "y",
        "symbols": {"d": ("disease", [("name", "=", "Hodgkin's lymphoma")]),
                    "y": ("drug", [])},
        "triplets": [("y", "indication", "d", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-parentheses-in-name",
        "text": 'MATCH (y:drug)-[:target]->(g:gene/protein {name: "IL-6 (interleukin 6)"})\n'
                "RETURN y",
        "target": "y",
        "symbols": {"y": ("drug", []),
                    "g": ("gene/protein", [("name", "=", "IL-6 (interleukin 6)")])},
        "triplets": [("y", "target", "g", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-think-block-with-decoy-match",
        "text": "<think>\nThe question asks which drugs treat a disease linked to BRCA1. "
                "I could write MATCH (d:drug) RETURN d but the disease has to sit in the "
                "middle of a chain.\n</think>\n"
                "MATCH (y:drug)-[:indication]->(d:disease)-[:associated_with]-"
                '(g:gene/protein {name: "BRCA1"})\nRETURN y',
        "target": "y",
        "symbols": {"y": ("drug", []), "d": ("disease", []),
                    "g": ("gene/protein", [("name", "=", "BRCA1")])},
        "triplets": [("y", "indication", "d", True, 1, 1),
                     ("d", "associated_with", "g", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-chain-both-arrow-directions",
        "text": 'MATCH (a:anatomy {name: "liver"})<-[:expression_present]-(g:gene/protein)'
                "-[:interacts_with]->(p:pathway)\nRETURN p",
        "target": "p",
        "symbols": {"a": ("anatomy", [("name", "=", "liver")]), "g": ("gene/protein", []),
                    "p": ("pathway", [])},
        "triplets": [("g", "expression_present", "a", True, 1, 1),
                     ("g", "interacts_with", "p", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-two-match-clauses",
        "text": 'MATCH (y:drug)-[:side_effect]->(e:effect/phenotype {name: "nausea"})\n'
                'MATCH (y)-[:indication]->(d:disease {name: "migraine"})\nRETURN y',
        "target": "y",
        "symbols": {"y": ("drug", []), "e": ("effect/phenotype", [("name", "=", "nausea")]),
                    "d": ("disease", [("name", "=", "migraine")])},
        "triplets": [("y", "side_effect", "e", True, 1, 1),
                     ("y", "indication", "d", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-comma-separated-patterns",
        "text": "MATCH (y:gene/protein)-[:ppi]-(a:gene/protein {name: 'EGFR'}), "
                "(y)-[:expression_present]-(t:anatomy {name: 'lung'}) RETURN y",
        "target": "y",
        "symbols": {"y": ("gene/protein", []), "a": ("gene/protein", [("name", "=", "EGFR")]),
                    "t": ("anatomy", [("name", "=", "lung")])},
        "triplets": [("y", "ppi", "a", False, 1, 1),
                     ("y", "expression_present", "t", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-or-of-equalities-becomes-in",
        "text": "MATCH (y:drug)-[:indication]->(d:disease)\n"
                'WHERE d.name = "asthma" OR d.name = "COPD"\nRETURN y',
        "target": "y",
        "symbols": {"y": ("drug", []), "d": ("disease", [("name", "IN", ("asthma", "COPD"))])},
        "triplets": [("y", "indication", "d", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-in-list",
        "text": "MATCH (y:drug)-[:contraindication]->(d:disease)\n"
                'WHERE d.name IN ["hypertension", "heart failure"]\nRETURN y',
        "target": "y",
        "symbols": {"y": ("drug", []),
                    "d": ("disease", [("name", "IN", ("hypertension", "heart failure"))])},
        "triplets": [("y", "contraindication", "d", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-lowercase-contains",
        "text": "match (y:pathway)<-[:interacts_with]-(g:gene/protein) "
                "where g.name contains 'kinase' return y",
        "target": "y",
        "symbols": {"y": ("pathway", []),
                    "g": ("gene/protein", [("name", "CONTAINS", "kinase")])},
        "triplets": [("g", "interacts_with", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-starts-and-ends-with",
        "text": "MATCH (y:biological_process)-[:interacts_with]-(g:gene/protein)\n"
                'WHERE g.name STARTS WITH "HOX" AND y.name ENDS WITH "development"\nRETURN y',
        "target": "y",
        "symbols": {"y": ("biological_process", [("name", "ENDS WITH", "development")]),
                    "g": ("gene/protein", [("name", "STARTS WITH", "HOX")])},
        "triplets": [("y", "interacts_with", "g", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-regex",
        "text": "MATCH (y:drug)-[:target]->(g:gene/protein {name: 'TNF'})\n"
                "WHERE y.name =~ '(?i).*mab'\nRETURN y",
        "target": "y",
        "symbols": {"y": ("drug", [("name", "=~", "(?i).*mab")]),
                    "g": ("gene/protein", [("name", "=", "TNF")])},
        "triplets": [("y", "target", "g", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-not-pattern-dropped",
        "text": "MATCH (y:drug)-[:indication]->(d:disease {name: 'psoriasis'})\n"
                "WHERE NOT (y)-[:side_effect]->(:effect/phenotype {name: 'hepatotoxicity'})\n"
                "RETURN y",
        "target": "y",
        "symbols": {"y": ("drug", []), "d": ("disease", [("name", "=", "psoriasis")])},
        "triplets": [("y", "indication", "d", True, 1, 1)],
        "dropped": ["NOT"],
    },
    {
        "id": "prime-or-across-properties-dropped",
        "text": "MATCH (y:drug)-[:target]->(g:gene/protein)\n"
                "WHERE g.name = 'JAK1' OR y.name CONTAINS 'tinib'\nRETURN y",
        "target": "y",
        "symbols": {"y": ("drug", []), "g": ("gene/protein", [])},
        "triplets": [("y", "target", "g", True, 1, 1)],
        "dropped": ["OR is only supported"],
    },
    {
        "id": "prime-variable-length",
        "text": 'MATCH (y:disease)-[:parent_child*1..2]->(p:disease {name: "cardiomyopathy"})\n'
                "RETURN y",
        "target": "y",
        "symbols": {"y": ("disease", []), "p": ("disease", [("name", "=", "cardiomyopathy")])},
        "triplets": [("y", "parent_child", "p", True, 1, 2)],
        "dropped": [],
    },
    {
        "id": "prime-relationship-variable-returned-second",
        "text": 'MATCH (e:exposure {name: "arsenic"})-[r:linked_to]->(y:disease)\nRETURN y, r',
        "target": "y",
        "symbols": {"e": ("exposure", [("name", "=", "arsenic")]), "y": ("disease", [])},
        "triplets": [("e", "linked_to", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-anonymous-nodes",
        "text": "MATCH (y:drug)-[:target]->(:gene/protein)-[:ppi]-(:gene/protein {name: 'KRAS'})"
                "\nRETURN y",
        "target": "y",
        "symbols": {"y": ("drug", []), "_anon1": ("gene/protein", []),
                    "_anon2": ("gene/protein", [("name", "=", "KRAS")])},
        "triplets": [("y", "target", "_anon1", True, 1, 1),
                     ("_anon1", "ppi", "_anon2", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-harmony-transcript",
        "text": "<|channel|>analysis<|message|>Need drugs whose side effect is alopecia. "
                "MATCH drug to phenotype.<|end|><|start|>assistant<|channel|>final<|message|>"
                'MATCH (y:drug)-[:side_effect]->(e:effect/phenotype {name: "alopecia"}) '
                "RETURN y<|return|>",
        "target": "y",
        "symbols": {"y": ("drug", []), "e": ("effect/phenotype", [("name", "=", "alopecia")])},
        "triplets": [("y", "side_effect", "e", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-distinct-order-limit-on-own-lines",
        "text": 'MATCH (g:gene/protein)-[:expression_present]->(a:anatomy {name: "hippocampus"})'
                "\nRETURN DISTINCT g.name AS gene\nORDER BY gene\nLIMIT 20",
        "target": "g",
        "symbols": {"g": ("gene/protein", []), "a": ("anatomy", [("name", "=", "hippocampus")])},
        "triplets": [("g", "expression_present", "a", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-go-terms-two-matches",
        "text": 'MATCH (y:gene/protein)-[:interacts_with]->(m:molecular_function {name: "ATP '
                'binding"})\nMATCH (y)-[:interacts_with]->(c:cellular_component '
                '{name: "mitochondrial inner membrane"})\nRETURN y',
        "target": "y",
        "symbols": {"y": ("gene/protein", []),
                    "m": ("molecular_function", [("name", "=", "ATP binding")]),
                    "c": ("cellular_component",
                          [("name", "=", "mitochondrial inner membrane")])},
        "triplets": [("y", "interacts_with", "m", True, 1, 1),
                     ("y", "interacts_with", "c", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-truncated-in-where",
        "text": 'MATCH (y:drug)-[:indication]->(d:disease {name: "type 2 diabetes mellitus"})\n'
                "WHERE y.",
        "target": "y",
        "symbols": {"y": ("drug", []),
                    "d": ("disease", [("name", "=", "type 2 diabetes mellitus")])},
        "triplets": [("y", "indication", "d", True, 1, 1)],
        "dropped": ["condition not understood", "no usable RETURN"],
    },
    {
        "id": "prime-unicode-names",
        "text": 'MATCH (y:disease)-[:phenotype_present]->(p:effect/phenotype {name: "café-au-lait '
                'spots"})\nMATCH (y)<-[:indication]-(d:drug {name: "β-interferon"})\nRETURN y',
        "target": "y",
        "symbols": {"y": ("disease", []),
                    "p": ("effect/phenotype", [("name", "=", "café-au-lait spots")]),
                    "d": ("drug", [("name", "=", "β-interferon")])},
        "triplets": [("y", "phenotype_present", "p", True, 1, 1),
                     ("d", "indication", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-comments",
        "text": "// drugs for gout\nMATCH (y:drug)-[:indication]->(d:disease {name: 'gout'}) "
                "// the disease\nRETURN y /* the answer */",
        "target": "y",
        "symbols": {"y": ("drug", []), "d": ("disease", [("name", "=", "gout")])},
        "triplets": [("y", "indication", "d", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-comment-with-apostrophe",
        "text": "// the drug's targets\nMATCH (y:gene/protein)<-[:drug_targets_gene/protein]-"
                "(d:drug {name: 'Metformin'})  // Metformin's targets\nRETURN y",
        "target": "y",
        "symbols": {"y": ("gene/protein", []), "d": ("drug", [("name", "=", "Metformin")])},
        "triplets": [("d", "drug_targets_gene/protein", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "prime-tolower-on-both-sides",
        "text": "MATCH (y:drug)-[:indication]->(d:disease)\n"
                "WHERE toLower(d.name) = toLower('Rheumatoid Arthritis')\nRETURN y",
        "target": "y",
        "symbols": {"y": ("drug", []),
                    "d": ("disease", [("name", "=", "Rheumatoid Arthritis")])},
        "triplets": [("y", "indication", "d", True, 1, 1)],
        "dropped": [],
    },
    # ---------------------------------------------------------------- MAG
    {
        "id": "mag-author-papers-year",
        "text": 'MATCH (a:author {name: "Geoffrey Hinton"})-[:author_writes_paper]->(y:paper)\n'
                "WHERE y.year >= 2015\nRETURN y",
        "target": "y",
        "symbols": {"a": ("author", [("name", "=", "Geoffrey Hinton")]),
                    "y": ("paper", [("year", ">=", 2015)])},
        "triplets": [("a", "author_writes_paper", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-four-node-chain",
        "text": 'MATCH (i:institution {name: "University of Toronto"})<-[:author_affiliated_with_'
                "institution]-(a:author)-[:author_writes_paper]->(y:paper)-[:paper_has_topic_"
                'field_of_study]->(f:field_of_study {name: "computer vision"})\nRETURN y',
        "target": "y",
        "symbols": {"i": ("institution", [("name", "=", "University of Toronto")]),
                    "a": ("author", []), "y": ("paper", []),
                    "f": ("field_of_study", [("name", "=", "computer vision")])},
        "triplets": [("a", "author_affiliated_with_institution", "i", True, 1, 1),
                     ("a", "author_writes_paper", "y", True, 1, 1),
                     ("y", "paper_has_topic_field_of_study", "f", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-year-range",
        "text": "MATCH (y:paper)-[:paper_has_topic_field_of_study]->(f:field_of_study "
                "{name: 'reinforcement learning'})\nWHERE y.year > 2016 AND y.year <= 2019\n"
                "RETURN y",
        "target": "y",
        "symbols": {"y": ("paper", [("year", ">", 2016), ("year", "<=", 2019)]),
                    "f": ("field_of_study", [("name", "=", "reinforcement learning")])},
        "triplets": [("y", "paper_has_topic_field_of_study", "f", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-map-with-several-properties",
        "text": 'MATCH (y:paper {year: 2018, venue: "NeurIPS"})-[:paper_cites_paper]->'
                "(p:paper {title: 'Attention Is All You Need'})\nRETURN y",
        "target": "y",
        "symbols": {"y": ("paper", [("year", "=", 2018), ("venue", "=", "NeurIPS")]),
                    "p": ("paper", [("title", "=", "Attention Is All You Need")])},
        "triplets": [("y", "paper_cites_paper", "p", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-decimals-and-negative-numbers",
        "text": "MATCH (y:paper)\nWHERE y.citation_rate > 0.75 AND y.score >= -1.5 "
                'AND y.title CONTAINS "graph"\nRETURN y',
        "target": "y",
        "symbols": {"y": ("paper", [("citation_rate", ">", 0.75), ("score", ">=", -1.5),
                                    ("title", "CONTAINS", "graph")])},
        "triplets": [],
        "dropped": [],
    },
    {
        "id": "mag-dates",
        "text": "MATCH (y:paper)<-[:author_writes_paper]-(a:author {name: 'Yoshua Bengio'})\n"
                "WHERE y.publication_date >= date('2017-01-01') AND "
                "y.publication_date < '2019-06-30'\nRETURN y",
        "target": "y",
        "symbols": {"y": ("paper", [("publication_date", ">=", D(2017, 1, 1)),
                                    ("publication_date", "<", D(2019, 6, 30))]),
                    "a": ("author", [("name", "=", "Yoshua Bengio")])},
        "triplets": [("a", "author_writes_paper", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-anonymous-constant-return-distinct-title",
        "text": "MATCH (y:paper)-[:paper_cites_paper]->(:paper {title: \"Deep Residual Learning "
                'for Image Recognition"})\nRETURN DISTINCT y.title AS title\nLIMIT 10',
        "target": "y",
        "symbols": {"y": ("paper", []),
                    "_anon1": ("paper", [("title", "=",
                                          "Deep Residual Learning for Image Recognition")])},
        "triplets": [("y", "paper_cites_paper", "_anon1", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-name-in-where-order-desc",
        "text": "MATCH (a:author)-[:author_writes_paper]->(y:paper)\nWHERE a.name = 'Fei-Fei Li'"
                "\nRETURN y\nORDER BY y.year DESC\nLIMIT 5",
        "target": "y",
        "symbols": {"a": ("author", [("name", "=", "Fei-Fei Li")]), "y": ("paper", [])},
        "triplets": [("a", "author_writes_paper", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-reversed-comparison",
        "text": "MATCH (y:paper) WHERE 2010 <= y.year AND y.title STARTS WITH 'A survey' RETURN y",
        "target": "y",
        "symbols": {"y": ("paper", [("year", ">=", 2010), ("title", "STARTS WITH", "A survey")])},
        "triplets": [],
        "dropped": [],
    },
    {
        "id": "mag-chained-comparison",
        "text": "MATCH (y:paper)-[:paper_has_topic_field_of_study]->(:field_of_study "
                "{name: 'speech recognition'})\nWHERE 2015 <= y.year <= 2018\nRETURN y",
        "target": "y",
        "symbols": {"y": ("paper", [("year", ">=", 2015), ("year", "<=", 2018)]),
                    "_anon1": ("field_of_study", [("name", "=", "speech recognition")])},
        "triplets": [("y", "paper_has_topic_field_of_study", "_anon1", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-prose-before-and-after",
        "text": "Here is the Cypher query you asked for:\n\nMATCH (y:paper)-[:paper_has_topic_"
                'field_of_study]->(f:field_of_study {name: "quantum computing"})\nRETURN y\n\n'
                "This query returns papers on quantum computing. It will match all such "
                "papers, with any year.",
        "target": "y",
        "symbols": {"y": ("paper", []),
                    "f": ("field_of_study", [("name", "=", "quantum computing")])},
        "triplets": [("y", "paper_has_topic_field_of_study", "f", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-prose-right-after-return-line",
        "text": "MATCH (y:paper)<-[:author_writes_paper]-(a:author {name: 'Andrew Ng'})\n"
                "RETURN y\nThis returns the papers where Andrew Ng is an author, with their "
                "titles.",
        "target": "y",
        "symbols": {"y": ("paper", []), "a": ("author", [("name", "=", "Andrew Ng")])},
        "triplets": [("a", "author_writes_paper", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-all-lowercase",
        "text": "match (y:paper)-[:paper_cites_paper]->(p:paper) where p.title = 'ImageNet "
                "Classification with Deep Convolutional Neural Networks' and y.year = 2020 "
                "return distinct y order by y.year limit 50",
        "target": "y",
        "symbols": {"y": ("paper", [("year", "=", 2020)]),
                    "p": ("paper", [("title", "=", "ImageNet Classification with Deep "
                                                   "Convolutional Neural Networks")])},
        "triplets": [("y", "paper_cites_paper", "p", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-untyped-undirected",
        "text": 'MATCH (y:paper)--(a:author {name: "Leslie Lamport"}) RETURN y',
        "target": "y",
        "symbols": {"y": ("paper", []), "a": ("author", [("name", "=", "Leslie Lamport")])},
        "triplets": [("y", None, "a", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-untyped-arrows",
        "text": "MATCH (a:author {name: 'Donald Knuth'})-->(y:paper)<--(b:author "
                "{name: 'Andrew Yao'}) RETURN y",
        "target": "y",
        "symbols": {"a": ("author", [("name", "=", "Donald Knuth")]), "y": ("paper", []),
                    "b": ("author", [("name", "=", "Andrew Yao")])},
        "triplets": [("a", None, "y", True, 1, 1), ("b", None, "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-two-labels",
        "text": 'MATCH (y:paper:Publication)-[:paper_cites_paper]->(p:paper {title: "BERT"}) '
                "RETURN y",
        "target": "y",
        "symbols": {"y": ("paper", []), "p": ("paper", [("title", "=", "BERT")])},
        "triplets": [("y", "paper_cites_paper", "p", True, 1, 1)],
        "dropped": ["only the first label"],
    },
    {
        "id": "mag-alternative-relationship-types",
        "text": "MATCH (y:paper)-[:paper_cites_paper|paper_has_topic_field_of_study]->"
                "(x {name: 'transformers'}) RETURN y",
        "target": "y",
        "symbols": {"y": ("paper", []), "x": (None, [("name", "=", "transformers")])},
        "triplets": [("y", "paper_cites_paper|paper_has_topic_field_of_study", "x", True, 1,
                      1)],
        "dropped": [],
    },
    {
        "id": "mag-union-keeps-first-query",
        "text": "MATCH (y:paper)-[:paper_has_topic_field_of_study]->(:field_of_study "
                "{name: 'robotics'}) RETURN y\nUNION\nMATCH (y:paper)-[:paper_has_topic_field_"
                "of_study]->(:field_of_study {name: 'control theory'}) RETURN y",
        "target": "y",
        "symbols": {"y": ("paper", []),
                    "_anon1": ("field_of_study", [("name", "=", "robotics")])},
        "triplets": [("y", "paper_has_topic_field_of_study", "_anon1", True, 1, 1)],
        "dropped": ["UNION"],
    },
    {
        "id": "mag-optional-match",
        "text": "MATCH (y:paper {title: 'Generative Adversarial Nets'})\n"
                "OPTIONAL MATCH (y)<-[:paper_cites_paper]-(c:paper)\nRETURN c",
        "target": "c",
        "symbols": {"y": ("paper", [("title", "=", "Generative Adversarial Nets")]),
                    "c": ("paper", [])},
        "triplets": [("c", "paper_cites_paper", "y", True, 1, 1)],
        "dropped": ["OPTIONAL MATCH read as MATCH"],
    },
    {
        "id": "mag-plain-with-between-matches",
        "text": "MATCH (a:author {name: 'Yann LeCun'})-[:author_writes_paper]->(p:paper)\n"
                "WITH p\nMATCH (p)-[:paper_cites_paper]->(y:paper)\nRETURN y",
        "target": "y",
        "symbols": {"a": ("author", [("name", "=", "Yann LeCun")]), "p": ("paper", []),
                    "y": ("paper", [])},
        "triplets": [("a", "author_writes_paper", "p", True, 1, 1),
                     ("p", "paper_cites_paper", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-aggregation-in-with",
        "text": "MATCH (y:author)-[:author_writes_paper]->(p:paper)-[:paper_has_topic_field_of_"
                "study]->(f:field_of_study {name: 'bioinformatics'})\nWITH y, count(p) AS n\n"
                "WHERE n > 3\nRETURN y",
        "target": "y",
        "symbols": {"y": ("author", []), "p": ("paper", []),
                    "f": ("field_of_study", [("name", "=", "bioinformatics")])},
        "triplets": [("y", "author_writes_paper", "p", True, 1, 1),
                     ("p", "paper_has_topic_field_of_study", "f", True, 1, 1)],
        "dropped": ["WITH is ignored", "condition not understood"],
    },
    {
        "id": "mag-unicode-institution",
        "text": "MATCH (y:author)-[:author_affiliated_with_institution]->(i:institution "
                '{name: "Universität Zürich"}) RETURN y',
        "target": "y",
        "symbols": {"y": ("author", []), "i": ("institution", [("name", "=", "Universität "
                                                                               "Zürich")])},
        "triplets": [("y", "author_affiliated_with_institution", "i", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-exists-pattern-predicate",
        "text": "MATCH (y:paper)\nWHERE exists((y)-[:paper_has_topic_field_of_study]->"
                "(:field_of_study {name: 'optics'})) AND y.year = 2012\nRETURN y",
        "target": "y",
        "symbols": {"y": ("paper", [("year", "=", 2012)]),
                    "_anon1": ("field_of_study", [("name", "=", "optics")])},
        "triplets": [("y", "paper_has_topic_field_of_study", "_anon1", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-prose-with-the-word-match-before-query",
        "text": "To match this question I use the paper and author labels; the year filter "
                "goes into WHERE.\nMATCH (y:paper)<-[:author_writes_paper]-(a:author "
                "{name: 'Barbara Liskov'})\nWHERE y.year < 1990\nRETURN y",
        "target": "y",
        "symbols": {"y": ("paper", [("year", "<", 1990)]),
                    "a": ("author", [("name", "=", "Barbara Liskov")])},
        "triplets": [("a", "author_writes_paper", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "mag-two-fences-first-is-not-cypher",
        "text": "The schema has these labels:\n```text\nauthor, paper, institution\n```\n"
                "Query:\n```cypher\nMATCH (y:paper)<-[:author_writes_paper]-(a:author "
                "{name: 'Judea Pearl'})\nRETURN y\n```",
        "target": "y",
        "symbols": {"y": ("paper", []), "a": ("author", [("name", "=", "Judea Pearl")])},
        "triplets": [("a", "author_writes_paper", "y", True, 1, 1)],
        "dropped": [],
    },
    # ---------------------------------------------------------------- AMAZON
    {
        "id": "amazon-brand-color-price",
        "text": 'MATCH (y:product)-[:has_brand]->(b:brand {name: "Nike"})\n'
                "MATCH (y)-[:has_color]->(c:color {name: 'black'})\nWHERE y.price < 50.99\n"
                "RETURN y",
        "target": "y",
        "symbols": {"y": ("product", [("price", "<", 50.99)]),
                    "b": ("brand", [("name", "=", "Nike")]),
                    "c": ("color", [("name", "=", "black")])},
        "triplets": [("y", "has_brand", "b", True, 1, 1), ("y", "has_color", "c", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-category-in-and-rating",
        "text": "MATCH (y:product)-[:has_category]->(c:category)\n"
                "WHERE c.name IN ['Camping & Hiking', \"Tents\"] AND y.rating >= 4.5\nRETURN y",
        "target": "y",
        "symbols": {"y": ("product", [("rating", ">=", 4.5)]),
                    "c": ("category", [("name", "IN", ("Camping & Hiking", "Tents"))])},
        "triplets": [("y", "has_category", "c", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-also-bought-chain",
        "text": 'MATCH (p:product {title: "Hydro Flask 32 oz Wide Mouth"})-[:also_bought]-'
                "(y:product)-[:has_brand]->(:brand {name: 'Yeti'}) RETURN y",
        "target": "y",
        "symbols": {"p": ("product", [("title", "=", "Hydro Flask 32 oz Wide Mouth")]),
                    "y": ("product", []), "_anon1": ("brand", [("name", "=", "Yeti")])},
        "triplets": [("p", "also_bought", "y", False, 1, 1),
                     ("y", "has_brand", "_anon1", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-title-with-quote-parens-dash",
        "text": "MATCH (y:product)-[:also_viewed]-(p:product {title: 'Kindle Paperwhite (8 GB) "
                "– now with a 6.8\" display'}) RETURN y",
        "target": "y",
        "symbols": {"y": ("product", []),
                    "p": ("product", [("title", "=", "Kindle Paperwhite (8 GB) – now with a "
                                                     '6.8" display')])},
        "triplets": [("y", "also_viewed", "p", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-backticked-type-with-space",
        "text": "MATCH (y:`product`)-[:`also viewed`]-(x:`product` {title: \"LEGO Star Wars "
                'Millennium Falcon"}) RETURN y',
        "target": "y",
        "symbols": {"y": ("product", []),
                    "x": ("product", [("title", "=", "LEGO Star Wars Millennium Falcon")])},
        "triplets": [("y", "also viewed", "x", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-nested-attribute-and-tolower",
        "text": "MATCH (y:product)-[:has_brand]->(b:brand {name: 'Sony'})\n"
                "WHERE y.details.weight_kg <= 1.2 AND toLower(y.title) CONTAINS 'headphones'\n"
                "RETURN y",
        "target": "y",
        "symbols": {"y": ("product", [("details.weight_kg", "<=", 1.2),
                                      ("title", "CONTAINS", "headphones")]),
                    "b": ("brand", [("name", "=", "Sony")])},
        "triplets": [("y", "has_brand", "b", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-or-with-in-list-merged",
        "text": "MATCH (y:product)-[:has_color]->(c:color)\n"
                "WHERE c.name = 'red' OR c.name IN ['crimson', 'maroon']\nRETURN y",
        "target": "y",
        "symbols": {"y": ("product", []),
                    "c": ("color", [("name", "IN", ("red", "crimson", "maroon"))])},
        "triplets": [("y", "has_color", "c", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-inequality-dropped",
        "text": "MATCH (y:product)-[:has_brand]->(b:brand)\n"
                "WHERE b.name <> 'Generic' AND y.title CONTAINS 'usb-c cable'\nRETURN y",
        "target": "y",
        "symbols": {"y": ("product", [("title", "CONTAINS", "usb-c cable")]),
                    "b": ("brand", [])},
        "triplets": [("y", "has_brand", "b", True, 1, 1)],
        "dropped": ["inequality"],
    },
    {
        "id": "amazon-json-style-keys",
        "text": 'MATCH (p:product {"title": "Instant Pot Duo 7-in-1"})-[:also_bought]-'
                "(y:product) RETURN y",
        "target": "y",
        "symbols": {"p": ("product", [("title", "=", "Instant Pot Duo 7-in-1")]),
                    "y": ("product", [])},
        "triplets": [("p", "also_bought", "y", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-boolean-and-integer",
        "text": "MATCH (y:product)-[:has_category]->(:category {name: 'Pet Supplies'})\n"
                "WHERE y.prime_eligible = true AND y.review_count > 1000\nRETURN y",
        "target": "y",
        "symbols": {"y": ("product", [("prime_eligible", "=", True),
                                      ("review_count", ">", 1000)]),
                    "_anon1": ("category", [("name", "=", "Pet Supplies")])},
        "triplets": [("y", "has_category", "_anon1", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-bare-fence-and-semicolon",
        "text": "```\nMATCH (y:product)-[:has_brand]->(b:brand {name: 'Lodge'})\nRETURN y;\n```",
        "target": "y",
        "symbols": {"y": ("product", []), "b": ("brand", [("name", "=", "Lodge")])},
        "triplets": [("y", "has_brand", "b", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-inline-code-in-prose",
        "text": "**Cypher:** `MATCH (y:product)-[:also_bought]-(p:product {title: 'AeroPress "
                "Coffee Maker'}) RETURN y`",
        "target": "y",
        "symbols": {"y": ("product", []),
                    "p": ("product", [("title", "=", "AeroPress Coffee Maker")])},
        "triplets": [("y", "also_bought", "p", False, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-json-reply",
        "text": '{"cypher": "MATCH (y:product)-[:has_brand]->(b:brand {name: \\"Logitech\\"})'
                '\\nWHERE y.price < 100\\nRETURN y", "target_type": "product"}',
        "target": "y",
        "symbols": {"y": ("product", [("price", "<", 100)]),
                    "b": ("brand", [("name", "=", "Logitech")])},
        "triplets": [("y", "has_brand", "b", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-typographic-quotes",
        "text": "MATCH (y:product)-[:has_color]->(c:color {name: \u201cnavy blue\u201d})\n"
                "WHERE y.title CONTAINS \u201cdon't\u201d\nRETURN y",
        "target": "y",
        "symbols": {"y": ("product", [("title", "CONTAINS", "don't")]),
                    "c": ("color", [("name", "=", "navy blue")])},
        "triplets": [("y", "has_color", "c", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "amazon-spaces-everywhere",
        "text": "MATCH ( y : product ) - [ : has_brand ] -> ( b : brand { name : 'Anker' } )\n"
                "WHERE y . price <= 25\nRETURN  y",
        "target": "y",
        "symbols": {"y": ("product", [("price", "<=", 25)]),
                    "b": ("brand", [("name", "=", "Anker")])},
        "triplets": [("y", "has_brand", "b", True, 1, 1)],
        "dropped": [],
    },
    # ---------------------------------------------------------------- demo SKB (stdlib)
    {
        "id": "demo-module-defines-exception-chain",
        "text": "MATCH (m:module {name: 'json'})-[:module_defines_exception]->(y:exception)"
                "-[:exception_inherits_from_exception]->(e:exception {name: 'ValueError'})\n"
                "RETURN y",
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "json")]), "y": ("exception", []),
                    "e": ("exception", [("name", "=", "ValueError")])},
        "triplets": [("m", "module_defines_exception", "y", True, 1, 1),
                     ("y", "exception_inherits_from_exception", "e", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "demo-variable-length-full-range",
        "text": "MATCH (y:class)-[:class_inherits_from_class*1..3]->(b:class "
                "{name: 'collections.abc.Mapping'}) RETURN y",
        "target": "y",
        "symbols": {"y": ("class", []),
                    "b": ("class", [("name", "=", "collections.abc.Mapping")])},
        "triplets": [("y", "class_inherits_from_class", "b", True, 1, 3)],
        "dropped": [],
    },
    {
        "id": "demo-variable-length-star",
        "text": 'MATCH (y:module)-[:module_imports_module*]->(m:module {name: "os"}) RETURN y',
        "target": "y",
        "symbols": {"y": ("module", []), "m": ("module", [("name", "=", "os")])},
        "triplets": [("y", "module_imports_module", "m", True, 1, 3)],
        "dropped": [],
    },
    {
        "id": "demo-variable-length-capped",
        "text": "MATCH (m:module {name: 'asyncio'})-[:module_imports_module*2..5]->(y:module) "
                "RETURN y",
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "asyncio")]), "y": ("module", [])},
        "triplets": [("m", "module_imports_module", "y", True, 2, 3)],
        "dropped": ["capped"],
    },
    {
        "id": "demo-closing-think-tag-only",
        "text": "Okay, the user wants the functions in itertools, so I match the module.\n"
                "</think>\n\n```cypher\nmatch (m:module {name: 'itertools'})-[:module_defines_"
                "function]->(y:function)\nreturn y\n```",
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "itertools")]), "y": ("function", [])},
        "triplets": [("m", "module_defines_function", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "demo-label-predicate-in-where",
        "text": "MATCH (m {name: 'pathlib'})-[:module_defines_class]->(y) WHERE y:class RETURN y",
        "target": "y",
        "symbols": {"m": (None, [("name", "=", "pathlib")]), "y": ("class", [])},
        "triplets": [("m", "module_defines_class", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "demo-return-count",
        "text": 'MATCH (m:module {name: "email"})-[:module_imports_module]->(y:module) '
                "RETURN count(y) AS n",
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "email")]), "y": ("module", [])},
        "triplets": [("m", "module_imports_module", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "demo-return-star",
        "text": "MATCH (m:module {name: 'http'})-[:module_defines_class]->(y:class) RETURN *",
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "http")]), "y": ("class", [])},
        "triplets": [("m", "module_defines_class", "y", True, 1, 1)],
        "dropped": ["RETURN names no node", "no usable RETURN"],
    },
    {
        "id": "demo-arrow-both-ways",
        "text": "MATCH (a:module {name: 'logging'})<-[:module_imports_module]->(y:module) "
                "RETURN y",
        "target": "y",
        "symbols": {"a": ("module", [("name", "=", "logging")]), "y": ("module", [])},
        "triplets": [("a", "module_imports_module", "y", False, 1, 1)],
        "dropped": ["both ways"],
    },
    {
        "id": "demo-refusal-without-query",
        "text": "I'm sorry, but I cannot write a query for this question.",
        "target": None,
        "symbols": {},
        "triplets": [],
        "dropped": ["no MATCH clause"],
    },
    {
        "id": "demo-relationship-properties",
        "text": "MATCH (y:function)<-[:module_defines_function {since: '3.8'}]-(m:module "
                "{name: 'math'}) RETURN y",
        "target": "y",
        "symbols": {"y": ("function", []), "m": ("module", [("name", "=", "math")])},
        "triplets": [("m", "module_defines_function", "y", True, 1, 1)],
        "dropped": ["properties on relationships"],
    },
    {
        "id": "demo-path-variable",
        "text": 'MATCH p = (m:module {name: "json"})-[:module_defines_class]->(y:class) RETURN y',
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "json")]), "y": ("class", [])},
        "triplets": [("m", "module_defines_class", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "demo-cut-off-second-pattern",
        "text": "MATCH (m:module {name: 're'})-[:module_defines_function]->(y:function), (y)-[:",
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "re")]), "y": ("function", [])},
        "triplets": [("m", "module_defines_function", "y", True, 1, 1)],
        "dropped": ["relationship not closed", "no usable RETURN"],
    },
    {
        "id": "demo-unclosed-string",
        "text": "MATCH (y:class)<-[:module_defines_class]-(m:module {name: 'collections})\n"
                "RETURN y",
        "target": "y",
        "symbols": {"y": ("class", []), "m": ("module", [])},
        "triplets": [("m", "module_defines_class", "y", True, 1, 1)],
        "dropped": ["property value not understood"],
    },
    {
        "id": "demo-inline-where-in-node",
        "text": "MATCH (y:function WHERE y.name STARTS WITH 'is')<-[:module_defines_function]-"
                "(m:module {name: 'inspect'}) RETURN y",
        "target": "y",
        "symbols": {"y": ("function", [("name", "STARTS WITH", "is")]),
                    "m": ("module", [("name", "=", "inspect")])},
        "triplets": [("m", "module_defines_function", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "demo-parenthesised-or",
        "text": "MATCH (m:module)-[:module_defines_exception]->(y:exception)\n"
                "WHERE (m.name = 'socket' OR m.name = 'ssl')\nRETURN y",
        "target": "y",
        "symbols": {"m": ("module", [("name", "IN", ("socket", "ssl"))]),
                    "y": ("exception", [])},
        "triplets": [("m", "module_defines_exception", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "demo-parameter-instead-of-literal",
        "text": "MATCH (m:module {name: $module})-[:module_defines_class]->(y:class) RETURN y",
        "target": "y",
        "symbols": {"m": ("module", []), "y": ("class", [])},
        "triplets": [("m", "module_defines_class", "y", True, 1, 1)],
        "dropped": ["property value not understood"],
    },
    {
        "id": "demo-is-null-dropped",
        "text": "MATCH (y:function)<-[:module_defines_function]-(m:module {name: 'os.path'})\n"
                "WHERE y.deprecated IS NULL\nRETURN y",
        "target": "y",
        "symbols": {"y": ("function", []), "m": ("module", [("name", "=", "os.path")])},
        "triplets": [("m", "module_defines_function", "y", True, 1, 1)],
        "dropped": ["IS NULL"],
    },
    {
        "id": "demo-return-on-its-own-line",
        "text": "MATCH (m:module {name: 'collections'})-[:module_defines_class]->(y:class)\n"
                "RETURN DISTINCT\n  y.name\n\nThis lists the classes.",
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "collections")]), "y": ("class", [])},
        "triplets": [("m", "module_defines_class", "y", True, 1, 1)],
        "dropped": [],
    },
    {
        "id": "demo-same-variable-two-labels",
        "text": "MATCH (y:class)<-[:module_defines_class]-(m:module {name: 'abc'})\n"
                "MATCH (y:exception)\nRETURN y",
        "target": "y",
        "symbols": {"y": ("class", []), "m": ("module", [("name", "=", "abc")])},
        "triplets": [("m", "module_defines_class", "y", True, 1, 1)],
        "dropped": ["already has label"],
    },
    {
        "id": "demo-quoted-label",
        "text": "MATCH (m:\"module\" {name: 'typing'})-[:\"module_defines_class\"]->(y:\"class\") "
                "RETURN y",
        "target": "y",
        "symbols": {"m": ("module", [("name", "=", "typing")]), "y": ("class", [])},
        "triplets": [("m", "module_defines_class", "y", True, 1, 1)],
        "dropped": [],
    },
]
