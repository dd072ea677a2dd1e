"""Build the real-text benchmark SKB from WordNet 3.0, read from local files only.

    python bench/real/build_skb.py OUT_DIR [--wordnet /usr/share/wordnet]

Input: Debian's ``wordnet-base`` package (``apt-get install -y wordnet-base``), which
installs Princeton WordNet 3.0's database under /usr/share/wordnet (data.noun, data.verb,
data.adj, data.adv, index.*, cntlist.rev) and the lexnames(5WN) manual page that describes
the 45 lexicographer files. Nothing is downloaded. The output is deterministic: the same
input files give byte-identical output files (gzip without a time stamp, sorted records).

The graph:

- one node per synset, typed by part of speech (``noun_concept``, ``verb_concept``,
  ``adjective_concept`` — head and satellite adjectives —, ``adverb_concept``); its name is
  the synset's first lemma, its aliases the other lemmas, its text WordNet's gloss
  (definition and example sentences);
- one ``word`` node per lemma of the index files (a word or multiword expression), whose
  text lists the definitions of its senses, noun senses first, in WordNet's sense order;
- one ``category`` node per lexicographer file (noun.animal, verb.motion, ...);
- edges from WordNet's pointers (hypernymy, instances, meronymy, antonymy, similarity,
  attributes, pertainyms, participles, derivation, entailment, cause, verb groups, "also
  see", domains of topic, region and usage), from each synset to its lexicographer file,
  and from each word to the synsets it can mean.

Besides skb.json, nodes.jsonl.gz and edges.csv.gz the directory gets WordNet's licence
(LICENSE-WordNet.txt, required on every copy) and the question files: questions.csv (all),
dev.csv and test.csv, copied from bench/real/questions.csv after checking every gold id
and the split (see ``assign_splits``; ``--assign-splits`` writes the split column).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.csv"
DEFAULT_WORDNET = Path("/usr/share/wordnet")
LEXNAMES_MAN = Path("/usr/share/man/man5/lexnames.5WN.gz")
SPLIT_SEED = "afr-real-wordnet-1"
WORD_TEXT_LIMIT = 1500  # characters of a word's list of definitions

POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
NODE_TYPE = {"n": "noun_concept", "v": "verb_concept", "a": "adjective_concept",
             "r": "adverb_concept"}
POS_WORD = {"n": "noun", "v": "verb", "a": "adjective", "r": "adverb"}
SS_TYPE_NUMBER = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}

# The 45 lexicographer files as lexnames(5WN) lists them (number, name, contents). Used only
# when the manual page is not installed (slim images drop /usr/share/man); when it is, the
# build reads it and checks that it says the same.
LEXNAMES_FALLBACK = [
    (0, "adj.all", "all adjective clusters"),
    (1, "adj.pert", "relational adjectives (pertainyms)"),
    (2, "adv.all", "all adverbs"),
    (3, "noun.Tops", "unique beginner for nouns"),
    (4, "noun.act", "nouns denoting acts or actions"),
    (5, "noun.animal", "nouns denoting animals"),
    (6, "noun.artifact", "nouns denoting man-made objects"),
    (7, "noun.attribute", "nouns denoting attributes of people and objects"),
    (8, "noun.body", "nouns denoting body parts"),
    (9, "noun.cognition", "nouns denoting cognitive processes and contents"),
    (10, "noun.communication", "nouns denoting communicative processes and contents"),
    (11, "noun.event", "nouns denoting natural events"),
    (12, "noun.feeling", "nouns denoting feelings and emotions"),
    (13, "noun.food", "nouns denoting foods and drinks"),
    (14, "noun.group", "nouns denoting groupings of people or objects"),
    (15, "noun.location", "nouns denoting spatial position"),
    (16, "noun.motive", "nouns denoting goals"),
    (17, "noun.object", "nouns denoting natural objects (not man-made)"),
    (18, "noun.person", "nouns denoting people"),
    (19, "noun.phenomenon", "nouns denoting natural phenomena"),
    (20, "noun.plant", "nouns denoting plants"),
    (21, "noun.possession", "nouns denoting possession and transfer of possession"),
    (22, "noun.process", "nouns denoting natural processes"),
    (23, "noun.quantity", "nouns denoting quantities and units of measure"),
    (24, "noun.relation", "nouns denoting relations between people or things or ideas"),
    (25, "noun.shape", "nouns denoting two and three dimensional shapes"),
    (26, "noun.state", "nouns denoting stable states of affairs"),
    (27, "noun.substance", "nouns denoting substances"),
    (28, "noun.time", "nouns denoting time and temporal relations"),
    (29, "verb.body", "verbs of grooming, dressing and bodily care"),
    (30, "verb.change", "verbs of size, temperature change, intensifying, etc."),
    (31, "verb.cognition", "verbs of thinking, judging, analyzing, doubting"),
    (32, "verb.communication", "verbs of telling, asking, ordering, singing"),
    (33, "verb.competition", "verbs of fighting, athletic activities"),
    (34, "verb.consumption", "verbs of eating and drinking"),
    (35, "verb.contact", "verbs of touching, hitting, tying, digging"),
    (36, "verb.creation", "verbs of sewing, baking, painting, performing"),
    (37, "verb.emotion", "verbs of feeling"),
    (38, "verb.motion", "verbs of walking, flying, swimming"),
    (39, "verb.perception", "verbs of seeing, hearing, feeling"),
    (40, "verb.possession", "verbs of buying, selling, owning"),
    (41, "verb.social", "verbs of political and social activities and events"),
    (42, "verb.stative", "verbs of being, having, spatial relations"),
    (43, "verb.weather", "verbs of raining, snowing, thawing, thundering"),
    (44, "adj.ppl", "participial adjectives"),
]

WORDNET_LICENSE = """\
WordNet Release 3.0

This software and database is being provided to you, the LICENSEE, by
Princeton University under the following license.  By obtaining, using
and/or copying this software and database, you agree that you have
read, understood, and will comply with these terms and conditions.:

Permission to use, copy, modify and distribute this software and
database and its documentation for any purpose and without fee or
royalty is hereby granted, provided that you agree to comply with
the following copyright notice and statements, including the disclaimer,
and that the same appear on ALL copies of the software, database and
documentation, including modifications that you make for internal
use or for distribution.

WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.

THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON
UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR
IMPLIED.  BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON
UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT-
ABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE
OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT
INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR
OTHER RIGHTS.

The name of Princeton University or Princeton may not be used in
advertising or publicity pertaining to distribution of the software
and/or database.  Title to copyright in this software, database and
any associated documentation shall at all times remain with
Princeton University and LICENSEE agrees to preserve same.

(The SKB in this directory was derived from WordNet 3.0 as packaged by Debian's
wordnet-base package: synsets became nodes, pointers became edges, glosses became texts.)
"""

# Edge types. Each WordNet pointer read (source part of speech, pointer symbol, target part
# of speech) maps to one edge type; pointers that are the inverse of one read here (hyponym
# ~, meronyms %, domain members -c -r -u, noun-to-adjective attribute =) are not read, and
# the few combinations with fewer than 50 synset pairs are left out (README.md lists them).
# Symmetric relations are undirected edge types and stored once per pair.
EDGE_TYPES: dict[str, dict] = {}
POINTER_MAP: dict[tuple[str, str, str], tuple[str, bool]] = {}  # → (edge type, swap ends)


def _edge(name: str, source: str, target: str, label: str, description: str,
          pointers: list[tuple[str, str, str]] = (), directed: bool = True) -> None:
    spec = {"source": source, "target": target, "label": label, "description": description}
    if not directed:
        spec["directed"] = False
    EDGE_TYPES[name] = spec
    for src_pos, symbol, dst_pos in pointers:
        # a pointer read from the target's side (a derivation from a verb to a noun) is
        # stored with the ends swapped, so every edge runs source type → target type
        swap = NODE_TYPE[src_pos] != source
        POINTER_MAP[(src_pos, symbol, dst_pos)] = (name, swap)


_edge("noun_hypernym", "noun_concept", "noun_concept", "noun_concept_is_a_kind_of_noun_concept",
      "the first concept is a kind of the second (hypernymy: a dog is a kind of canine)",
      [("n", "@", "n")])
_edge("noun_instance", "noun_concept", "noun_concept",
      "noun_concept_is_an_instance_of_noun_concept",
      "the first is a specific instance of the second (a particular person, place, "
      "event or work: Mozart is an instance of composer)", [("n", "@i", "n")])
_edge("part_of", "noun_concept", "noun_concept", "noun_concept_is_a_part_of_noun_concept",
      "the first is a part of the second (part meronymy: a wheel is a part of a car)",
      [("n", "#p", "n")])
_edge("member_of", "noun_concept", "noun_concept", "noun_concept_is_a_member_of_noun_concept",
      "the first is a member of the second group (member meronymy: a species of its genus, "
      "a person of an organization, a country of an alliance)", [("n", "#m", "n")])
_edge("substance_of", "noun_concept", "noun_concept",
      "noun_concept_is_a_substance_of_noun_concept",
      "the first is a substance or material that the second is made of or contains "
      "(substance meronymy)", [("n", "#s", "n")])
_edge("noun_antonym", "noun_concept", "noun_concept",
      "noun_concept_is_the_opposite_of_noun_concept",
      "the two concepts are opposites (antonymy)", [("n", "!", "n")], directed=False)
_edge("noun_noun_root", "noun_concept", "noun_concept",
      "noun_concept_shares_a_word_root_with_noun_concept",
      "words of the two concepts are derived from one another (derivation: "
      "actor - acting)", [("n", "+", "n")], directed=False)
_edge("noun_verb_root", "noun_concept", "verb_concept",
      "noun_concept_shares_a_word_root_with_verb_concept",
      "a word of the noun concept and a word of the verb concept are derived from one "
      "another (derivation: runner - run)", [("n", "+", "v"), ("v", "+", "n")],
      directed=False)
_edge("noun_adjective_root", "noun_concept", "adjective_concept",
      "noun_concept_shares_a_word_root_with_adjective_concept",
      "a word of the noun concept and a word of the adjective concept are derived from one "
      "another (derivation: happiness - happy)", [("n", "+", "a"), ("a", "+", "n")],
      directed=False)
_edge("verb_adjective_root", "verb_concept", "adjective_concept",
      "verb_concept_shares_a_word_root_with_adjective_concept",
      "a word of the verb concept and a word of the adjective concept are derived from one "
      "another (derivation: predict - predictable)", [("v", "+", "a"), ("a", "+", "v")],
      directed=False)
_edge("noun_topic", "noun_concept", "noun_concept", "noun_concept_belongs_to_topic_noun_concept",
      "the first concept belongs to the subject field of the second (domain: a goalkeeper "
      "belongs to the topic soccer)", [("n", ";c", "n")])
_edge("verb_topic", "verb_concept", "noun_concept", "verb_concept_belongs_to_topic_noun_concept",
      "the verb concept belongs to the subject field of the noun concept (to dribble belongs "
      "to the topic basketball)", [("v", ";c", "n")])
_edge("adjective_topic", "adjective_concept", "noun_concept",
      "adjective_concept_belongs_to_topic_noun_concept",
      "the adjective concept belongs to the subject field of the noun concept",
      [("a", ";c", "n")])
_edge("noun_region", "noun_concept", "noun_concept",
      "noun_concept_is_used_in_region_noun_concept",
      "the concept is specific to, or its word used in, the region or country of the second "
      "(domain region)", [("n", ";r", "n")])
_edge("adjective_region", "adjective_concept", "noun_concept",
      "adjective_concept_is_used_in_region_noun_concept",
      "the adjective concept is specific to, or used in, the region or country of the noun "
      "concept (domain region)", [("a", ";r", "n")])
_edge("noun_usage", "noun_concept", "noun_concept", "noun_concept_has_usage_label_noun_concept",
      "the concept's word carries the usage label of the second (slang, colloquialism, "
      "disparagement, plural, ...)", [("n", ";u", "n")])
_edge("adjective_usage", "adjective_concept", "noun_concept",
      "adjective_concept_has_usage_label_noun_concept",
      "the adjective concept's word carries the usage label of the noun concept (slang, "
      "colloquialism, ...)", [("a", ";u", "n")])
_edge("adverb_usage", "adverb_concept", "noun_concept",
      "adverb_concept_has_usage_label_noun_concept",
      "the adverb concept's word carries the usage label of the noun concept (slang, "
      "colloquialism, ...)", [("r", ";u", "n")])
_edge("adjective_similar", "adjective_concept", "adjective_concept",
      "adjective_concept_is_similar_to_adjective_concept",
      "the two adjective concepts are similar in meaning (a satellite and the head "
      "adjective of its cluster: soggy is similar to wet)", [("a", "&", "a")], directed=False)
_edge("adjective_antonym", "adjective_concept", "adjective_concept",
      "adjective_concept_is_the_opposite_of_adjective_concept",
      "the two adjective concepts are opposites (antonymy: wet - dry)", [("a", "!", "a")],
      directed=False)
_edge("adjective_attribute", "adjective_concept", "noun_concept",
      "adjective_concept_is_a_value_of_noun_concept",
      "the adjective concept is a value of the attribute named by the noun concept (heavy is "
      "a value of weight)", [("a", "=", "n")])
_edge("adjective_pertainym", "adjective_concept", "noun_concept",
      "adjective_concept_pertains_to_noun_concept",
      "the relational adjective concept means 'of or relating to' the noun concept "
      "(pertainymy: dental pertains to tooth)", [("a", "\\", "n")])
_edge("adjective_participle", "adjective_concept", "verb_concept",
      "adjective_concept_is_a_participle_of_verb_concept",
      "the adjective concept is a participle of the verb concept", [("a", "<", "v")])
_edge("adjective_also_see", "adjective_concept", "adjective_concept",
      "adjective_concept_is_related_to_adjective_concept",
      "the two adjective concepts are related in meaning ('see also')", [("a", "^", "a")],
      directed=False)
_edge("verb_hypernym", "verb_concept", "verb_concept", "verb_concept_is_a_kind_of_verb_concept",
      "the first verb concept is a particular way of doing the second (troponymy: to "
      "whisper is a kind of to talk)", [("v", "@", "v")])
_edge("verb_antonym", "verb_concept", "verb_concept",
      "verb_concept_is_the_opposite_of_verb_concept",
      "the two verb concepts are opposites (antonymy: rise - fall)", [("v", "!", "v")],
      directed=False)
_edge("verb_entailment", "verb_concept", "verb_concept", "verb_concept_entails_verb_concept",
      "doing the first implies doing the second (entailment: to snore entails to sleep)",
      [("v", "*", "v")])
_edge("verb_cause", "verb_concept", "verb_concept", "verb_concept_causes_verb_concept",
      "the first verb concept causes the second (to kill causes to die)", [("v", ">", "v")])
_edge("verb_group", "verb_concept", "verb_concept", "verb_concept_is_a_close_sense_of_verb_concept",
      "the two verb concepts are closely related senses of one verb (verb group)",
      [("v", "$", "v")], directed=False)
_edge("verb_also_see", "verb_concept", "verb_concept", "verb_concept_is_related_to_verb_concept",
      "the two verb concepts are related in meaning ('see also')", [("v", "^", "v")],
      directed=False)
_edge("adverb_antonym", "adverb_concept", "adverb_concept",
      "adverb_concept_is_the_opposite_of_adverb_concept",
      "the two adverb concepts are opposites (antonymy: slowly - quickly)", [("r", "!", "r")],
      directed=False)
_edge("adverb_from_adjective", "adverb_concept", "adjective_concept",
      "adverb_concept_is_derived_from_adjective_concept",
      "the adverb concept's word is derived from the adjective concept's word (quickly from "
      "quick)", [("r", "\\", "a")])
for _pos in "nvar":
    _edge(f"{POS_WORD[_pos]}_category", NODE_TYPE[_pos], "category",
          f"{NODE_TYPE[_pos]}_belongs_to_category",
          f"the {POS_WORD[_pos]} concept is filed in this lexicographer category")
for _pos in "nvar":
    _edge(f"word_{POS_WORD[_pos]}", "word", NODE_TYPE[_pos], f"word_can_mean_{NODE_TYPE[_pos]}",
          f"the word (or multiword expression) has the {POS_WORD[_pos]} concept as one of "
          "its senses")

# pointers read on purpose and not stored: inverses of stored ones, and tiny combinations
SKIPPED_POINTERS = {"~", "~i", "%p", "%m", "%s", "-c", "-r", "-u"}


def schema() -> dict:
    return {
        "name": "wordnet-3.0",
        "description": (
            "Princeton WordNet 3.0 as a graph: noun, verb, adjective and adverb concepts "
            "(synsets) with their definitions and example sentences, the words that can "
            "mean them, and WordNet's lexical and semantic relations. WordNet 3.0 Copyright "
            "2006 by Princeton University. All rights reserved. (Licence: LICENSE-WordNet.txt)"),
        "directed": True,
        "candidate_types": ["noun_concept", "verb_concept", "adjective_concept",
                            "adverb_concept", "word"],
        "node_types": {
            "noun_concept": {"description": "a noun sense (WordNet noun synset): a kind of "
                             "thing, being, substance, place, event, act, idea or a named "
                             "individual, with its synonyms and definition"},
            "verb_concept": {"description": "a verb sense (WordNet verb synset): an action, "
                             "process or state, with its synonyms and definition"},
            "adjective_concept": {"description": "an adjective sense (WordNet adjective "
                                  "synset), with its synonyms and definition"},
            "adverb_concept": {"description": "an adverb sense (WordNet adverb synset), with "
                               "its synonyms and definition"},
            "word": {"description": "an English word or multiword expression, with the "
                     "definitions of all its senses"},
            "category": {"description": "one of WordNet's 45 lexicographer categories that "
                         "sort the concepts by part of speech and broad field (noun.animal, "
                         "noun.artifact, verb.motion, ...)"},
        },
        "edge_types": EDGE_TYPES,
        "source": "WordNet 3.0 (Debian package wordnet-base)",
    }


# --- reading WordNet ---------------------------------------------------------------------

@dataclass
class Synset:
    pos: str  # file: n, v, a, r
    offset: str
    lexfile: int
    ss_type: str  # n, v, a, s, r
    lemmas: list[str]  # as written (case kept), markers removed, '_' kept
    lex_ids: list[int]
    pointers: list[tuple[str, str, str, int, int]]  # symbol, offset, pos file, src w, dst w
    gloss: str
    key: str = ""  # node id
    tag_counts: list[int] = field(default_factory=list)


_MARKER = re.compile(r"\((?:a|p|ip)\)$")


def read_data(wordnet: Path) -> dict[tuple[str, str], Synset]:
    synsets: dict[tuple[str, str], Synset] = {}
    for pos, fname in POS_FILES.items():
        with open(wordnet / f"data.{fname}", encoding="ascii") as f:
            for line in f:
                if line.startswith("  "):  # the licence header
                    continue
                head, _, gloss = line.partition(" | ")
                parts = head.split()
                offset, lexfile, ss_type = parts[0], int(parts[1]), parts[2]
                count = int(parts[3], 16)
                lemmas, lex_ids = [], []
                i = 4
                for _ in range(count):
                    lemmas.append(_MARKER.sub("", parts[i]))
                    lex_ids.append(int(parts[i + 1], 16))
                    i += 2
                n_ptr = int(parts[i])
                i += 1
                pointers = []
                for _ in range(n_ptr):
                    symbol, target, tpos, st = parts[i:i + 4]
                    i += 4
                    pointers.append((symbol, target, "a" if tpos == "s" else tpos,
                                     int(st[:2], 16), int(st[2:], 16)))
                synsets[(pos, offset)] = Synset(pos, offset, lexfile, ss_type, lemmas,
                                                lex_ids, pointers, gloss.strip())
    return synsets


def read_index(wordnet: Path) -> dict[str, dict[str, list[str]]]:
    """lemma → part of speech → synset offsets in WordNet's sense order."""
    index: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for pos, fname in POS_FILES.items():
        with open(wordnet / f"index.{fname}", encoding="ascii") as f:
            for line in f:
                if line.startswith("  "):
                    continue
                parts = line.split()
                lemma, synset_cnt, p_cnt = parts[0], int(parts[2]), int(parts[3])
                offsets = parts[4 + p_cnt + 2:]
                assert len(offsets) == synset_cnt, line
                index[lemma][pos] = offsets
    return index


def read_cntlist(wordnet: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    path = wordnet / "cntlist.rev"
    if not path.exists():
        return counts
    with open(path, encoding="ascii") as f:
        for line in f:
            key, _sense, count = line.split()
            counts[key] = int(count)
    return counts


def read_lexnames() -> list[tuple[int, str, str]]:
    if not LEXNAMES_MAN.exists():
        return LEXNAMES_FALLBACK
    with gzip.open(LEXNAMES_MAN, "rt", encoding="ascii") as f:
        text = f.read()
    table = text.split("\n_\n", 1)[1].split("\n.TE", 1)[0]
    rows = []
    for line in table.splitlines():
        num, name, contents = line.split("\t")
        rows.append((int(num), name.strip(), " ".join(contents.split())))
    if rows != LEXNAMES_FALLBACK:
        raise SystemExit(f"{LEXNAMES_MAN} differs from the lexnames this script knows")
    return rows


# --- building ------------------------------------------------------------------------------

def definition_and_examples(gloss: str) -> tuple[str, list[str]]:
    examples = re.findall(r'"([^"]*)"', gloss)
    definition = gloss.split('"', 1)[0].strip().rstrip(";").strip()
    return definition, examples


def display(lemma: str) -> str:
    return lemma.replace("_", " ")


def name_synsets(synsets: dict[tuple[str, str], Synset],
                 index: dict[str, dict[str, list[str]]]) -> None:
    """Node ids in the familiar lemma.pos.NN form: the first lemma, the part of speech (s
    for a satellite adjective) and the synset's rank among that lemma's senses."""
    for s in synsets.values():
        lemma = s.lemmas[0].lower()
        rank = index[lemma][s.pos].index(s.offset) + 1
        s.key = f"{lemma}.{s.ss_type}.{rank:02d}"
    keys = [s.key for s in synsets.values()]
    assert len(set(keys)) == len(keys), "synset ids are not unique"


def tag_counts(synsets: dict[tuple[str, str], Synset], counts: dict[str, int]) -> int:
    """Each lemma's count in WordNet's semantically tagged texts (cntlist.rev), by sense
    key; returns how many sense keys were found."""
    found = 0
    for s in synsets.values():
        head = ""
        if s.ss_type == "s":
            for symbol, target, tpos, _sw, _dw in s.pointers:
                if symbol == "&":
                    h = synsets[(tpos, target)]
                    head = f"{h.lemmas[0].lower()}:{h.lex_ids[0]:02d}"
                    break
        s.tag_counts = []
        for lemma, lex_id in zip(s.lemmas, s.lex_ids, strict=True):
            key = (f"{lemma.lower()}%{SS_TYPE_NUMBER[s.ss_type]}:{s.lexfile:02d}:"
                   f"{lex_id:02d}:{head if head else ':'}")
            if key in counts:
                found += 1
            s.tag_counts.append(counts.get(key, 0))
    return found


def build(wordnet: Path) -> tuple[list[dict], list[tuple[str, str, str]], dict]:
    synsets = read_data(wordnet)
    index = read_index(wordnet)
    name_synsets(synsets, index)
    found = tag_counts(synsets, read_cntlist(wordnet))
    lexnames = read_lexnames()
    lexname = {num: name for num, name, _ in lexnames}

    nodes: list[dict] = []
    for num, name, contents in lexnames:
        nodes.append({"id": f"category:{name}", "type": "category", "name": name,
                      "aliases": [contents], "text": f"WordNet lexicographer file {name}: "
                      f"{contents}.", "attrs": {"number": num}})
    for pos in "nvar":
        for (p, _off), s in sorted(synsets.items()):
            if p != pos:
                continue
            names = []
            for lemma in s.lemmas:
                shown = display(lemma)
                if shown not in names:
                    names.append(shown)
            attrs = {"category": lexname[s.lexfile], "corpus_frequency": sum(s.tag_counts)}
            if pos == "a":
                attrs["satellite"] = s.ss_type == "s"
            nodes.append({"id": s.key, "type": NODE_TYPE[pos], "name": names[0],
                          "aliases": names[1:], "text": s.gloss, "attrs": attrs})

    by_offset = {(s.pos, s.offset): s for s in synsets.values()}
    for lemma in sorted(index):
        senses = index[lemma]
        parts, attrs, freq = [], {}, 0
        for pos in "nvar":
            if pos not in senses:
                continue
            defs = []
            for off in senses[pos]:
                s = by_offset[(pos, off)]
                definition, _ = definition_and_examples(s.gloss)
                defs.append(definition)
                for form, c in zip(s.lemmas, s.tag_counts, strict=True):
                    if form.lower() == lemma:
                        freq += c
            attrs[f"{POS_WORD[pos]}_senses"] = len(defs)
            parts.append(f"As {'an' if pos in 'ar' else 'a'} {POS_WORD[pos]}: " +
                         "; ".join(f"({i}) {d}" for i, d in enumerate(defs, 1)) + ".")
        text = " ".join(parts)
        if len(text) > WORD_TEXT_LIMIT:
            text = text[:WORD_TEXT_LIMIT - 1].rstrip() + "…"
        attrs["senses"] = sum(len(v) for v in senses.values())
        attrs["corpus_frequency"] = freq
        nodes.append({"id": f"word:{lemma}", "type": "word", "name": display(lemma),
                      "aliases": [], "text": text, "attrs": attrs})

    edges: set[tuple[str, str, str]] = set()
    dropped: dict[tuple[str, str, str], int] = defaultdict(int)
    for (pos, _off), s in synsets.items():
        edges.add((s.key, f"{POS_WORD[pos]}_category", f"category:{lexname[s.lexfile]}"))
        for symbol, target, tpos, _sw, _dw in s.pointers:
            if symbol in SKIPPED_POINTERS or (pos, symbol, tpos) == ("n", "=", "a"):
                continue
            mapped = POINTER_MAP.get((pos, symbol, tpos))
            other = synsets[(tpos, target)].key
            if mapped is None:
                dropped[(pos, symbol, tpos)] += 1
                continue
            etype, swap = mapped
            src, dst = (other, s.key) if swap else (s.key, other)
            if src == dst:
                continue
            spec = EDGE_TYPES[etype]
            if spec.get("directed", True) is False and spec["source"] == spec["target"]:
                src, dst = min(src, dst), max(src, dst)  # one edge per unordered pair
            edges.add((src, etype, dst))
    for lemma, senses in index.items():
        for pos, offsets in senses.items():
            for off in offsets:
                edges.add((f"word:{lemma}", f"word_{POS_WORD[pos]}", by_offset[(pos, off)].key))

    order = {t: i for i, t in enumerate(EDGE_TYPES)}
    edge_list = sorted(edges, key=lambda e: (order[e[1]], e[0], e[2]))
    stats = {"sense_keys_with_counts": found,
             "dropped_pointers": {f"{a} {b} {c}": n for (a, b, c), n in sorted(dropped.items())}}
    return nodes, edge_list, stats


# --- questions -------------------------------------------------------------------------------

QUESTION_COLUMNS = ["id", "query", "answer_ids", "target_type", "cypher", "cypher_noisy",
                    "noise", "split", "kind"]
KINDS = ("relational", "textual", "both")


def assign_splits(rows: list[dict]) -> dict[str, str]:
    """dev or test for every question: within each kind, questions ordered by a hash of a
    fixed seed and their id, the first half (rounded up) dev, the rest test."""
    out = {}
    for kind in KINDS:
        ids = sorted((r["id"] for r in rows if r["kind"] == kind),
                     key=lambda i: hashlib.sha256(f"{SPLIT_SEED}:{i}".encode()).hexdigest())
        half = (len(ids) + 1) // 2
        for n, qid in enumerate(ids):
            out[qid] = "dev" if n < half else "test"
    return out


def read_questions(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == QUESTION_COLUMNS, reader.fieldnames
        return list(reader)


def check_questions(rows: list[dict], nodes: list[dict], types: set[str]) -> list[str]:
    node_type = {n["id"]: n["type"] for n in nodes}
    problems = []
    seen = set()
    splits = assign_splits(rows)
    for r in rows:
        qid = r["id"]
        if qid in seen:
            problems.append(f"{qid}: duplicate id")
        seen.add(qid)
        if r["kind"] not in KINDS:
            problems.append(f"{qid}: unknown kind {r['kind']!r}")
        if r["split"] != splits.get(qid):
            problems.append(f"{qid}: split {r['split']!r}, the seeded split says "
                            f"{splits.get(qid)!r}")
        if r["target_type"] not in types:
            problems.append(f"{qid}: unknown target type {r['target_type']!r}")
        gold = json.loads(r["answer_ids"])
        if not 1 <= len(gold) <= 20:
            problems.append(f"{qid}: {len(gold)} gold answers")
        for g in gold:
            if g not in node_type:
                problems.append(f"{qid}: gold {g!r} is not a node")
            elif node_type[g] != r["target_type"]:
                problems.append(f"{qid}: gold {g!r} is a {node_type[g]}, "
                                f"not a {r['target_type']}")
        for col in ("query", "cypher", "cypher_noisy", "noise"):
            if not r[col].strip():
                problems.append(f"{qid}: empty {col}")
    return problems


def write_questions(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=QUESTION_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


# --- writing -------------------------------------------------------------------------------

def gzip_bytes(data: bytes) -> bytes:
    buf = io.BytesIO()
    # no file name and mtime 0: the same content gives the same bytes on every run
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as f:
        f.write(data)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="output SKB directory (created)")
    ap.add_argument("--wordnet", type=Path, default=DEFAULT_WORDNET,
                    help="WordNet 3.0 database directory (default: %(default)s, from "
                    "Debian's wordnet-base)")
    ap.add_argument("--questions", type=Path, default=QUESTIONS,
                    help="the hand-written questions (default: bench/real/questions.csv)")
    ap.add_argument("--assign-splits", action="store_true",
                    help="write the seeded dev/test split into the questions file first")
    args = ap.parse_args(argv)
    if not (args.wordnet / "data.noun").exists():
        raise SystemExit(f"{args.wordnet}/data.noun not found: apt-get install -y wordnet-base")

    nodes, edges, stats = build(args.wordnet)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    spec = schema()
    (out / "skb.json").write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n",
                                  encoding="utf-8")
    (out / "LICENSE-WordNet.txt").write_text(WORDNET_LICENSE, encoding="utf-8")
    lines = "".join(json.dumps(n, ensure_ascii=False, separators=(", ", ": ")) + "\n"
                    for n in nodes)
    (out / "nodes.jsonl.gz").write_bytes(gzip_bytes(lines.encode("utf-8")))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["src", "type", "dst"])
    writer.writerows(edges)
    (out / "edges.csv.gz").write_bytes(gzip_bytes(buf.getvalue().encode("utf-8")))

    node_counts: dict[str, int] = defaultdict(int)
    for n in nodes:
        node_counts[n["type"]] += 1
    edge_counts: dict[str, int] = defaultdict(int)
    for _s, t, _d in edges:
        edge_counts[t] += 1
    summary = {"nodes": len(nodes), "edges": len(edges),
               "nodes_per_type": dict(sorted(node_counts.items())),
               "edges_per_type": {t: edge_counts[t] for t in EDGE_TYPES}, **stats}

    if args.questions.exists():
        rows = read_questions(args.questions)
        if args.assign_splits:
            splits = assign_splits(rows)
            for r in rows:
                r["split"] = splits[r["id"]]
            write_questions(args.questions, rows)
        problems = check_questions(rows, nodes, set(spec["candidate_types"]))
        if problems:
            for p in problems:
                print("question " + p, file=sys.stderr)
            raise SystemExit(f"{len(problems)} problem(s) in {args.questions}")
        write_questions(out / "questions.csv", rows)
        for split in ("dev", "test"):
            write_questions(out / f"{split}.csv", [r for r in rows if r["split"] == split])
        per = defaultdict(int)
        for r in rows:
            per[f"{r['kind']}/{r['split']}"] += 1
        summary["questions"] = dict(sorted(per.items()))
    (out / "stats.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
