"""The three STaRK-like shapes: node types, edge types, names, texts, attributes, wording.

Shares follow the public STaRK statistics roughly (PRIME: 10 node types, 18 relation
types, ~62 edges per node; MAG: papers, authors, institutions, fields, ~21 edges per
node; AMAZON: products, brands, categories, colours, ~9 edges per node). Every word is
invented (vocab.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from afr.synth import vocab as V


@dataclass(frozen=True)
class AttrSpec:
    """One attribute: how it is drawn and how a question can use it as the property.

    kind: ``int`` (uniform in [lo, hi]), ``float`` / ``count`` (log-normal around lo,
    clipped to hi; two decimals / whole),
    ``rating`` (1.0–5.0, one decimal, skewed high), ``date`` (ISO day between years lo
    and hi), ``choice`` (one of ``choices``, Zipf-weighted).
    ask: how a question states it — ``eq`` (same value), ``year`` (same year of a date),
    ``lt`` (below a round threshold), ``ge`` (at least a threshold); None: never asked.
    """

    name: str
    kind: str
    lo: float = 0
    hi: float = 0
    choices: tuple[str, ...] = ()
    ask: str | None = None
    wording: str = ""  # e.g. "published in {}"


@dataclass(frozen=True)
class NodeSpec:
    type: str
    share: float
    description: str
    name_parts: tuple[tuple[str, ...], ...]
    name_format: str  # str.format over one item of each part
    text_format: str  # {name}, {p1}, {p2}
    qualities: tuple[str, ...]  # phrase = quality + " " + feature: the textual properties
    features: tuple[str, ...]
    attrs: tuple[AttrSpec, ...] = ()
    noun: str = ""  # how questions name the type ("gene or protein"); default: the type
    capitalize: bool = False  # upper-case the name's first letter (drug names)


@dataclass(frozen=True)
class EdgeSpec:
    type: str
    source: str
    target: str
    share: float
    label: str
    from_source: str  # describes a source node, {} = the target: "indicated for {}"
    from_target: str  # describes a target node, {} = the source: "treated by {}"
    description: str = ""


@dataclass(frozen=True)
class Shape:
    like: str
    name: str
    description: str
    nodes: tuple[NodeSpec, ...]
    edges: tuple[EdgeSpec, ...]
    candidate_types: tuple[str, ...] | None  # None: every type
    edges_per_node: float
    property_words: tuple[str, ...] = field(default=(
        "whose description mentions {}", "described as having {}", "noted for {}",
        "characterised by {}",
    ))

    def node(self, type_: str) -> NodeSpec:
        return next(n for n in self.nodes if n.type == type_)

    def noun(self, type_: str) -> str:
        return self.node(type_).noun or type_.replace("_", " ")


_NUMBERS = tuple(str(i) for i in range(1, 10000))
_BIO_Q, _BIO_F = tuple(V.BIO_QUALITY), tuple(V.BIO_FEATURE)

PRIME = Shape(
    like="prime",
    name="synthetic-prime",
    description="synthetic SKB shaped like STaRK PRIME (benchmark data, nothing here is true)",
    nodes=(
        NodeSpec("gene/protein", 0.215, "a gene or the protein it encodes",
                 (tuple(V.GENE_PREFIX), _NUMBERS), "{}{}",
                 "{name} encodes a protein studied for {p1}; variants affect {p2}.",
                 _BIO_Q, _BIO_F,
                 (AttrSpec("chromosome", "choice", choices=tuple(
                     [f"chr{i}" for i in range(1, 23)] + ["chrX", "chrY"])),
                  AttrSpec("length_bp", "int", 800, 250_000)),
                 noun="gene or protein"),
        NodeSpec("drug", 0.061, "a drug or drug candidate",
                 (tuple(V.DRUG_HEAD), tuple(V.DRUG_MID), tuple(V.DRUG_TAIL)), "{}{}{}",
                 "{name} is a compound with {p1}. Trials reported {p2}.",
                 _BIO_Q, _BIO_F,
                 (AttrSpec("approval_date", "date", 1960, 2024, ask="year",
                           wording="approved in {}"),
                  AttrSpec("molecular_weight", "float", 350, 2000)), capitalize=True),
        NodeSpec("disease", 0.132, "a disease or disorder",
                 (tuple(V.DISEASE_MOD), tuple(V.ORGAN), tuple(V.DISEASE_NOUN), V.DISEASE_SUBTYPE),
                 "{} {} {}{}",
                 "{name} is a condition marked by {p1} and often {p2}.",
                 _BIO_Q, _BIO_F,
                 (AttrSpec("prevalence_per_100k", "float", 5, 5000),)),
        NodeSpec("effect/phenotype", 0.120, "a clinical effect or phenotype",
                 (tuple(V.EFFECT_MOD), tuple(V.EFFECT_NOUN), V.EFFECT_CONTEXT, V.SEVERITY), "{} {}{}{}",
                 "{name}: an observable trait tied to {p1} and {p2}.",
                 _BIO_Q, _BIO_F, noun="effect or phenotype"),
        NodeSpec("anatomy", 0.108, "an anatomical structure",
                 (tuple(V.ANATOMY_POS), tuple(V.ORGAN), tuple(V.ANATOMY_PART), V.ANATOMY_LAYER),
                 "{} {} {}{}",
                 "The {name} is a structure where {p1} and {p2} are seen.",
                 _BIO_Q, _BIO_F, noun="anatomical structure"),
        NodeSpec("pathway", 0.020, "a biological pathway",
                 (tuple(V.MOLECULE), tuple(V.PROCESS), V.PATHWAY_KIND), "{} {} pathway{}",
                 "The {name} coordinates {p1} with {p2}.", _BIO_Q, _BIO_F),
        NodeSpec("molecular_function", 0.085, "a molecular function",
                 (V.FUNCTION_MOD, tuple(V.MOLECULE), tuple(V.ACTIVITY), V.FUNCTION_SPEC),
                 "{}{} {} activity{}",
                 "{name}: a molecular function needed for {p1} and {p2}.",
                 _BIO_Q, _BIO_F, noun="molecular function"),
        NodeSpec("biological_process", 0.218, "a biological process",
                 (tuple(V.REGULATION), tuple(V.MOLECULE), tuple(V.PROCESS), V.CELL_CONTEXT),
                 "{} of {} {}{}",
                 "{name} is a process underlying {p1} and {p2}.",
                 _BIO_Q, _BIO_F, noun="biological process"),
        NodeSpec("cellular_component", 0.031, "a cellular component",
                 (tuple(V.ORGANELLE), tuple(V.COMPONENT_PART), V.CELL_CONTEXT), "{} {}{}",
                 "The {name} is a cell part involved in {p1} and {p2}.",
                 _BIO_Q, _BIO_F, noun="cellular component"),
        NodeSpec("exposure", 0.010, "an environmental exposure",
                 (tuple(V.EXPOSURE_ROUTE), tuple(V.EXPOSURE), V.EXPOSURE_DOSE), "{} {} exposure{}",
                 "{name} is an exposure associated with {p1} and {p2}.",
                 _BIO_Q, _BIO_F),
    ),
    edges=(
        EdgeSpec("ppi", "gene/protein", "gene/protein", 0.16,
                 "gene_protein_interacts_with_gene_protein",
                 "that interacts with {}", "that interacts with {}",
                 "protein-protein interaction"),
        EdgeSpec("carrier", "drug", "gene/protein", 0.01, "drug_carried_by_gene_protein",
                 "carried by {}", "that carries {}"),
        EdgeSpec("enzyme", "drug", "gene/protein", 0.01, "drug_metabolised_by_gene_protein",
                 "metabolised by {}", "that metabolises {}"),
        EdgeSpec("target", "drug", "gene/protein", 0.02, "drug_targets_gene_protein",
                 "that targets {}", "targeted by {}"),
        EdgeSpec("transporter", "drug", "gene/protein", 0.01,
                 "drug_transported_by_gene_protein", "transported by {}",
                 "that transports {}"),
        EdgeSpec("contraindication", "drug", "disease", 0.03,
                 "drug_contraindicated_for_disease", "contraindicated for {}",
                 "for which {} is contraindicated"),
        EdgeSpec("indication", "drug", "disease", 0.01, "drug_indicated_for_disease",
                 "indicated for {}", "treated by {}"),
        EdgeSpec("off-label use", "drug", "disease", 0.01, "drug_used_off_label_for_disease",
                 "used off-label for {}", "treated off-label with {}"),
        EdgeSpec("synergistic interaction", "drug", "drug", 0.33,
                 "drug_interacts_synergistically_with_drug",
                 "that interacts synergistically with {}",
                 "that interacts synergistically with {}"),
        EdgeSpec("associated with", "gene/protein", "disease", 0.02,
                 "gene_protein_associated_with_disease", "associated with {}",
                 "associated with the gene {}"),
        EdgeSpec("parent-child", "biological_process", "biological_process", 0.03,
                 "biological_process_is_parent_or_child_of_biological_process",
                 "that is a parent or child process of {}",
                 "that is a parent or child process of {}"),
        EdgeSpec("phenotype absent", "disease", "effect/phenotype", 0.01,
                 "disease_lacks_phenotype_effect_phenotype", "that lacks the phenotype {}",
                 "absent in {}"),
        EdgeSpec("phenotype present", "disease", "effect/phenotype", 0.04,
                 "disease_has_phenotype_effect_phenotype", "that presents with {}",
                 "present in {}"),
        EdgeSpec("side effect", "drug", "effect/phenotype", 0.07,
                 "drug_has_side_effect_effect_phenotype", "with the side effect {}",
                 "that is a side effect of {}"),
        EdgeSpec("interacts with", "gene/protein", "biological_process", 0.07,
                 "gene_protein_involved_in_biological_process", "involved in {}",
                 "involving {}"),
        EdgeSpec("linked to", "exposure", "disease", 0.01, "exposure_linked_to_disease",
                 "linked to {}", "linked to {}"),
        EdgeSpec("expression present", "anatomy", "gene/protein", 0.15,
                 "anatomy_expresses_gene_protein", "that expresses {}", "expressed in the {}"),
        EdgeSpec("expression absent", "anatomy", "gene/protein", 0.01,
                 "anatomy_does_not_express_gene_protein", "that does not express {}",
                 "not expressed in the {}"),
    ),
    candidate_types=None,
    edges_per_node=62.0,
)

_SCI_Q, _SCI_F = tuple(V.SCI_QUALITY), tuple(V.SCI_FEATURE)

MAG = Shape(
    like="mag",
    name="synthetic-mag",
    description="synthetic SKB shaped like STaRK MAG (benchmark data, nothing here is true)",
    nodes=(
        NodeSpec("paper", 0.37, "a research paper",
                 (V.TITLE_LEAD, tuple(V.TITLE_ADJ), tuple(V.TITLE_NOUN), tuple(V.TITLE_OBJ),
                  tuple(V.TITLE_METHOD)), "{}{} {} of {} with {}",
                 "{name}. We present {p1} and {p2}, and compare with prior work.",
                 _SCI_Q, _SCI_F,
                 (AttrSpec("year", "int", 1990, 2023, ask="eq", wording="published in {}"),
                  AttrSpec("citations", "count", 8, 20000)),
                 ),
        NodeSpec("author", 0.59, "a person who writes papers",
                 (tuple(V.FIRST_NAMES), tuple(V.INITIALS), V.SECOND_INITIAL,
                  tuple(V.LAST_NAMES)), "{} {}.{} {}",
                 "{name} is a researcher whose work offers {p1} and {p2}.",
                 _SCI_Q, _SCI_F, (AttrSpec("h_index", "int", 0, 90),)),
        NodeSpec("institution", 0.005, "a university or research institute",
                 (tuple(k.format(h + t) for k in V.INSTITUTION_KIND for h in V.PLACE_HEAD
                        for t in V.PLACE_TAIL), V.CAMPUS), "{}{}",
                 "{name} is an institution known for {p1} and {p2}.",
                 _SCI_Q, _SCI_F,
                 (AttrSpec("country", "choice", choices=tuple(V.COUNTRIES)),)),
        NodeSpec("field_of_study", 0.035, "a field of study",
                 (tuple(V.FIELD_MOD), tuple(V.FIELD_NOUN), V.FIELD_SCOPE, V.FIELD_METHOD),
                 "{} {}{}{}",
                 "{name} is a field in which {p1} and {p2} are common.",
                 _SCI_Q, _SCI_F, (AttrSpec("level", "int", 0, 5),), noun="field of study"),
    ),
    edges=(
        EdgeSpec("writes", "author", "paper", 0.20, "author_writes_paper",
                 "who wrote {}", "written by {}"),
        EdgeSpec("cites", "paper", "paper", 0.52, "paper_cites_paper",
                 "that cites or is cited by {}", "that cites or is cited by {}"),
        EdgeSpec("affiliated_with", "author", "institution", 0.03,
                 "author_affiliated_with_institution", "affiliated with {}",
                 "that employs {}"),
        EdgeSpec("has_topic", "paper", "field_of_study", 0.25,
                 "paper_has_topic_field_of_study", "on the topic {}",
                 "that is a topic of {}"),
    ),
    candidate_types=("paper",),
    edges_per_node=21.0,
)

_RET_Q, _RET_F = tuple(V.RETAIL_QUALITY), tuple(V.RETAIL_FEATURE)

AMAZON = Shape(
    like="amazon",
    name="synthetic-amazon",
    description="synthetic SKB shaped like STaRK AMAZON (benchmark data, nothing here is true)",
    nodes=(
        NodeSpec("product", 0.974, "a product sold online",
                 (tuple(V.PRODUCT_ADJ), tuple(V.PRODUCT_MATERIAL), tuple(V.PRODUCT_NOUN),
                  tuple(V.PRODUCT_CODE)), "{} {} {} {}",
                 "{name}. Reviewers mention the {p1} and the {p2}.",
                 _RET_Q, _RET_F,
                 (AttrSpec("price", "float", 25, 900, ask="lt", wording="priced under ${}"),
                  AttrSpec("rating", "rating", ask="ge", wording="rated at least {} stars"),
                  AttrSpec("reviews", "count", 30, 50000),
                  AttrSpec("release_date", "date", 2000, 2023)),
                 ),
        NodeSpec("brand", 0.024, "a brand",
                 (tuple(V.BRAND_HEAD), V.BRAND_MID, tuple(V.BRAND_TAIL), V.BRAND_LINE),
                 "{}{}{}{}",
                 "{name} is a brand whose customers praise the {p1} and the {p2}.",
                 _RET_Q, _RET_F, (AttrSpec("country", "choice", choices=tuple(V.COUNTRIES)),)),
        NodeSpec("category", 0.001, "a product category",
                 (tuple(V.CATEGORY_HEAD), tuple(V.CATEGORY_TAIL), V.CATEGORY_SCOPE),
                 "{} {}{}",
                 "{name}: products where shoppers look for {p1} and {p2}.",
                 _RET_Q, _RET_F),
        NodeSpec("color", 0.0015, "a colour",
                 (tuple(V.COLOR_SHADE), tuple(V.COLOR_BASE), V.COLOR_FINISH), "{} {}{}",
                 "{name} is a colour often chosen for {p1} and {p2}.",
                 _RET_Q, _RET_F),
    ),
    edges=(
        EdgeSpec("also_bought", "product", "product", 0.35, "product_also_bought_with_product",
                 "bought together with {}", "bought together with {}"),
        EdgeSpec("also_viewed", "product", "product", 0.35, "product_also_viewed_with_product",
                 "viewed together with {}", "viewed together with {}"),
        EdgeSpec("has_brand", "product", "brand", 0.09, "product_has_brand_brand",
                 "by the brand {}", "that makes {}"),
        EdgeSpec("has_category", "product", "category", 0.17,
                 "product_in_category_category", "in the category {}", "that contains {}"),
        EdgeSpec("has_color", "product", "color", 0.04, "product_has_color_color",
                 "available in {}", "in which {} is available"),
    ),
    candidate_types=("product",),
    edges_per_node=9.0,
    property_words=("whose reviews mention {}", "praised or criticised for {}",
                    "with reviews about {}"),
)

SHAPES: dict[str, Shape] = {s.like: s for s in (PRIME, MAG, AMAZON)}
