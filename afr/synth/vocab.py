"""Word lists for synthetic names and texts. Invented for afr; nothing here is meant to be true.

Names are built by mixed-radix composition over these lists (see ``names.py``), so a list's
length multiplies the number of distinct names a node type can have before numbers are added.
"""

from __future__ import annotations

# -- biomedical (prime-like) ------------------------------------------------------------------

GENE_PREFIX = [
    "ABC", "ACT", "ADR", "AKT", "ALK", "APO", "ARF", "ATP", "BCL", "BMP", "BRC", "CAD", "CAS",
    "CCN", "CDK", "CFT", "CHR", "COL", "CSF", "CYP", "DLG", "DNM", "EGF", "EPH", "ERB", "FAS",
    "FGF", "FOX", "GAB", "GAT", "GLU", "GPR", "GRB", "HDA", "HLA", "HOX", "HSP", "IFN", "IGF",
    "IRF", "JAK", "KCN", "KIF", "KRT", "LAM", "LRP", "MAP", "MEF", "MMP", "MYC", "MYO", "NAT",
    "NFK", "NOT", "NRX", "PAX", "PDG", "PIK", "PKD", "POL", "PRK", "PTP", "RAB", "RAD", "RAS",
    "RBM", "RHO", "RNF", "SCN", "SLC", "SMA", "SOX", "SRC", "STA", "SYN", "TBX", "TGF", "TLR",
    "TNF", "TOP", "TRP", "TUB", "UBE", "USP", "VEG", "WNT", "XPO", "ZFP", "ZNF",
]
DRUG_HEAD = ["vexa", "tola", "mira", "celo", "dura", "fena", "gliva", "halo", "ibra", "jano",
             "keto", "lora", "meta", "nira", "olan", "pira", "quina", "rivo", "sela", "tiga",
             "ulva", "vora", "zola", "abi", "beno", "cara", "deno", "eli", "fosa", "gemi"]
DRUG_MID = ["", "ci", "da", "fe", "li", "mo", "na", "pe", "ra", "se", "ti", "vo", "xa", "zu",
            "bro", "cla", "tre", "spi", "glo", "pri"]
DRUG_TAIL = ["mab", "nib", "pril", "sartan", "statin", "zole", "cillin", "mycin", "dipine",
             "olol", "azepam", "oxetine", "parin", "vudine", "tide", "lukast", "triptan",
             "gliptin", "profen", "dronate", "floxacin", "setron", "caine", "fungin"]
ORGAN = ["renal", "hepatic", "cardiac", "pulmonary", "neural", "ocular", "dermal", "gastric",
         "intestinal", "muscular", "skeletal", "vascular", "thyroid", "pancreatic", "splenic",
         "lymphatic", "cerebral", "spinal", "adrenal", "ovarian", "testicular", "prostatic",
         "bronchial", "cochlear", "retinal", "dental", "biliary", "urinary"]
DISEASE_MOD = ["chronic", "acute", "familial", "juvenile", "congenital", "progressive",
               "hereditary", "idiopathic", "autoimmune", "recurrent", "early-onset",
               "late-onset", "atypical", "benign", "malignant", "systemic"]
DISEASE_NOUN = ["fibrosis", "dysplasia", "syndrome", "carcinoma", "myopathy", "neuropathy",
                "atrophy", "insufficiency", "inflammation", "sclerosis", "deficiency",
                "dystrophy", "hyperplasia", "stenosis", "lymphoma", "degeneration",
                "ataxia", "anemia"]
EFFECT_MOD = ["abnormal", "increased", "decreased", "absent", "delayed", "reduced",
              "elevated", "impaired", "irregular", "persistent", "episodic", "enlarged"]
EFFECT_NOUN = ["reflexes", "pigmentation", "bone density", "heart rate", "blood pressure",
               "muscle tone", "hair growth", "tooth enamel", "sweating", "coordination",
               "vision", "hearing", "appetite", "sleep", "body weight", "skin elasticity",
               "nail shape", "gait", "speech", "memory", "platelet count", "glucose level"]
ANATOMY_POS = ["anterior", "posterior", "lateral", "medial", "superior", "inferior", "distal",
               "proximal", "deep", "superficial", "left", "right", "central", "outer"]
ANATOMY_PART = ["cortex", "epithelium", "ganglion", "lobe", "duct", "gland", "membrane",
                "nucleus", "vessel", "tissue", "sheath", "cartilage", "mucosa", "tendon",
                "ligament", "node"]
MOLECULE = ["insulin", "calcium", "glucose", "lipid", "cholesterol", "retinoic acid", "heme",
            "collagen", "dopamine", "serotonin", "iron", "zinc", "sodium", "potassium",
            "glutamate", "purine", "pyrimidine", "folate", "vitamin D", "estrogen", "cortisol",
            "interferon", "chemokine", "histone", "ubiquitin", "phosphate", "sulfate",
            "fatty acid", "amino acid", "nucleotide"]
PROCESS = ["transport", "signaling", "metabolism", "biosynthesis", "catabolism", "secretion",
           "uptake", "homeostasis", "binding", "sensing", "storage", "modification"]
REGULATION = ["regulation", "positive regulation", "negative regulation", "modulation",
              "maintenance", "initiation", "termination"]
ACTIVITY = ["binding", "transferase", "hydrolase", "oxidoreductase", "transporter",
            "receptor", "kinase", "ligase", "chaperone", "carrier"]
ORGANELLE = ["mitochondrial", "nuclear", "lysosomal", "endosomal", "golgi", "ribosomal",
             "peroxisomal", "cytoskeletal", "synaptic", "ciliary", "plasma", "vesicular"]
COMPONENT_PART = ["membrane", "matrix", "lumen", "envelope", "complex", "granule", "body",
                  "filament", "pore", "junction", "cleft", "vesicle"]
EXPOSURE = ["arsenic", "benzene", "lead", "mercury", "cadmium", "asbestos", "radon", "ozone",
            "particulate matter", "tobacco smoke", "pesticide", "dioxin", "formaldehyde",
            "nitrate", "ultraviolet light", "noise", "silica", "vinyl chloride", "bisphenol A",
            "phthalate"]
EXPOSURE_ROUTE = ["occupational", "dietary", "prenatal", "chronic", "household", "airborne",
                  "waterborne", "industrial"]
BIO_QUALITY = ["rapid", "slow", "selective", "broad", "strong", "weak", "transient",
               "sustained", "tissue-specific", "dose-dependent", "reversible", "irreversible",
               "high", "low", "variable", "stable", "unusual", "marked"]
BIO_FEATURE = ["renal clearance", "oral bioavailability", "nuclear localisation",
               "membrane binding", "liver toxicity", "immune activation", "protein folding",
               "DNA repair", "cell migration", "apoptosis", "ion flux", "plasma half-life",
               "blood-brain barrier crossing", "enzyme inhibition", "receptor agonism",
               "mitochondrial stress", "inflammatory response", "tumour suppression",
               "neuronal firing", "platelet aggregation", "lipid storage", "insulin release",
               "wound healing", "bone remodelling", "oxidative damage", "hormone secretion",
               "viral entry", "antibody response", "muscle contraction", "cell adhesion"]

# -- academic (mag-like) ------------------------------------------------------------------------

FIRST_NAMES = [
    "Ada", "Ahmed", "Aiko", "Alan", "Alice", "Amara", "Ana", "Anders", "Andrea", "Anil", "Anna",
    "Arjun", "Ben", "Bianca", "Boris", "Carla", "Carlos", "Chen", "Chloe", "Dan", "Daria",
    "David", "Divya", "Elena", "Emil", "Emma", "Erik", "Fatima", "Felix", "Fiona", "Gabriel",
    "Grace", "Hana", "Hans", "Hugo", "Ines", "Ivan", "Jack", "Jana", "Jin", "Joao", "Jonas",
    "Julia", "Kai", "Karin", "Kenji", "Lars", "Laura", "Lea", "Leon", "Li", "Lina", "Luca",
    "Lucia", "Maja", "Marco", "Maria", "Mateo", "Mei", "Mia", "Milan", "Mina", "Nadia", "Nils",
    "Noah", "Nora", "Olga", "Omar", "Oscar", "Paula", "Pedro", "Priya", "Rafael", "Ravi",
    "Rosa", "Ruth", "Sara", "Sean", "Sofia", "Sven", "Tariq", "Theo", "Tom", "Uma", "Vera",
    "Victor", "Wei", "Yara", "Yusuf", "Zoe",
]
LAST_NAMES = [
    "Abe", "Adler", "Alvarez", "Andersen", "Bauer", "Becker", "Bianchi", "Brandt", "Brown",
    "Castro", "Chen", "Costa", "Dahl", "Das", "Dubois", "Eriksson", "Fischer", "Fontaine",
    "Garcia", "Gupta", "Hansen", "Hartmann", "Hoffmann", "Horvat", "Ito", "Ivanova", "Jansen",
    "Jovanovic", "Kaur", "Keller", "Kim", "Klein", "Koch", "Kowalski", "Kumar", "Lang", "Larsen",
    "Laurent", "Lee", "Lehmann", "Lopez", "Lund", "Mancini", "Martin", "Meyer", "Moreau",
    "Moreno", "Mori", "Muller", "Nagy", "Nakamura", "Nguyen", "Novak", "Okafor", "Olsen",
    "Ortiz", "Park", "Patel", "Perez", "Petrov", "Popescu", "Ricci", "Rossi", "Sato", "Schmidt",
    "Schulz", "Silva", "Singh", "Smith", "Sorensen", "Suzuki", "Tanaka", "Torres", "Vogel",
    "Wagner", "Walker", "Wang", "Weber", "Wolf", "Wu", "Yamada", "Yilmaz", "Zhang", "Zhou",
    "Zimmermann",
]
INITIALS = [chr(c) for c in range(ord("A"), ord("Z") + 1)]
INSTITUTION_KIND = ["University of {}", "{} Institute of Technology", "{} Medical School",
                    "{} Research Centre", "{} State University", "{} College",
                    "{} Polytechnic", "{} Academy of Sciences"]
COUNTRIES = ["Austria", "Brazil", "Canada", "Chile", "China", "Denmark", "Egypt", "Finland",
             "France", "Germany", "Ghana", "India", "Israel", "Italy", "Japan", "Kenya",
             "Mexico", "Netherlands", "Nigeria", "Norway", "Poland", "Portugal", "Singapore",
             "South Korea", "Spain", "Sweden", "Switzerland", "Turkey", "United Kingdom",
             "United States"]
FIELD_MOD = ["applied", "computational", "theoretical", "statistical", "experimental",
             "quantum", "molecular", "environmental", "cognitive", "industrial", "clinical",
             "social", "evolutionary", "structural", "numerical", ""]
FIELD_NOUN = ["linguistics", "optimization", "genomics", "robotics", "cryptography",
              "ecology", "economics", "chemistry", "mechanics", "neuroscience", "topology",
              "epidemiology", "acoustics", "photonics", "hydrology", "logic", "learning theory",
              "databases", "graph theory", "control theory", "signal processing", "vision",
              "materials science", "fluid dynamics", "information retrieval"]
TITLE_ADJ = ["Efficient", "Scalable", "Robust", "Adaptive", "Sparse", "Distributed",
             "Probabilistic", "Incremental", "Interpretable", "Fast", "Approximate",
             "Hierarchical", "Online", "Provable", "Unsupervised", "Federated", "Lightweight",
             "Differentiable", "Secure", "Causal"]
TITLE_NOUN = ["estimation", "indexing", "clustering", "retrieval", "inference", "scheduling",
              "compression", "segmentation", "routing", "ranking", "sampling", "alignment",
              "verification", "reconstruction", "forecasting", "tracking", "summarization",
              "calibration", "partitioning", "matching"]
TITLE_OBJ = ["sensor networks", "knowledge graphs", "protein structures", "traffic flows",
             "social media", "medical images", "time series", "power grids", "genome data",
             "spoken language", "legal documents", "satellite imagery", "molecular graphs",
             "recommender systems", "robot arms", "climate models", "source code",
             "financial markets", "video streams", "wireless channels"]
TITLE_METHOD = ["random projections", "graph neural networks", "convex relaxations",
                "Bayesian models", "transformers", "kernel methods", "dynamic programming",
                "contrastive learning", "Monte Carlo search", "linear programs",
                "spectral methods", "decision forests", "message passing", "tensor sketches",
                "diffusion models", "attention", "boosting", "hashing", "gradient descent",
                "active learning"]
SCI_QUALITY = ["a novel", "an improved", "a simple", "a provably correct", "a data-driven",
               "a hybrid", "an end-to-end", "a lightweight", "a theoretical", "an empirical"]
SCI_FEATURE = ["error bound", "benchmark suite", "regularisation scheme", "loss function",
               "sampling strategy", "pruning rule", "user study", "ablation study",
               "convergence proof", "open-source toolkit", "annotation protocol",
               "privacy guarantee", "caching layer", "cost model", "evaluation metric",
               "training curriculum", "hardware prototype", "field trial", "simulation study",
               "lower bound", "query planner", "data set", "sensitivity analysis",
               "approximation ratio", "failure analysis"]

# -- retail (amazon-like) -------------------------------------------------------------------------

BRAND_HEAD = ["Zen", "Nor", "Vel", "Aero", "Lum", "Kor", "Tri", "Pix", "Sol", "Max", "Eco",
              "Neo", "Ultra", "Terra", "Flux", "Oro", "Vita", "Astra", "Bold", "Cleo"]
BRAND_TAIL = ["trix", "wave", "line", "craft", "forge", "nest", "ware", "gear", "tek", "ora",
              "mark", "peak", "field", "works", "labs", "home", "sport", "kind", "form", "ly"]
COLOR_SHADE = ["", "light", "dark", "pale", "deep", "bright", "muted", "neon", "dusty",
               "metallic"]
COLOR_BASE = ["red", "blue", "green", "black", "white", "grey", "navy", "olive", "teal",
              "coral", "ivory", "beige", "maroon", "purple", "orange", "yellow", "pink",
              "turquoise", "bronze", "silver", "gold", "lavender", "mint", "charcoal"]
CATEGORY_HEAD = ["Kitchen", "Outdoor", "Office", "Garden", "Travel", "Fitness", "Bath",
                 "Baby", "Pet", "Camping", "Audio", "Lighting", "Storage", "Tool", "Craft",
                 "Cycling", "Fishing", "Gaming", "Music", "Beauty"]
CATEGORY_TAIL = ["Accessories", "Essentials", "Equipment", "Supplies", "Gadgets", "Furniture",
                 "Decor", "Electronics", "Apparel", "Gear", "Organizers", "Care"]
PRODUCT_ADJ = ["Compact", "Foldable", "Wireless", "Portable", "Heavy-Duty", "Ergonomic",
               "Waterproof", "Adjustable", "Rechargeable", "Insulated", "Classic", "Premium",
               "Slim", "Magnetic", "Stackable", "Cordless", "Vintage", "Modular"]
PRODUCT_MATERIAL = ["Bamboo", "Steel", "Silicone", "Leather", "Cotton", "Aluminum", "Glass",
                    "Ceramic", "Oak", "Nylon", "Wool", "Titanium", "Canvas", "Copper"]
PRODUCT_NOUN = ["Water Bottle", "Desk Lamp", "Backpack", "Cutting Board", "Phone Stand",
                "Yoga Mat", "Headphones", "Lunch Box", "Tent", "Kettle", "Bike Light",
                "Planter", "Wallet", "Keyboard", "Pillow", "Knife Set", "Dog Leash",
                "Shower Caddy", "Speaker", "Notebook", "Camera Strap", "Tool Kit",
                "Storage Bin", "Travel Mug"]
PRODUCT_CODE = [f"{a}{n}" for a in "ABCDEFGHJKLMNPRSTVXZ" for n in range(100, 1000, 50)]
RETAIL_QUALITY = ["sturdy", "lightweight", "easy", "quiet", "smooth", "durable", "soft",
                  "bright", "compact", "generous", "reliable", "flimsy", "slippery", "tight",
                  "loose", "fast"]
RETAIL_FEATURE = ["assembly", "zipper", "battery life", "grip", "lid seal", "stitching",
                  "hinge", "charging", "cleaning", "fit", "padding", "finish", "buttons",
                  "handle", "clasp", "storage pocket", "base", "cable", "strap", "packaging",
                  "instructions", "customer service", "colour match", "smell"]

# -- qualifiers: extra name parts that widen the name space of large node types ----------------

DISEASE_SUBTYPE = ("",) + tuple(f", type {i}" for i in range(1, 10)) + tuple(
    f", subtype {c}" for c in "ABCDE")
EFFECT_CONTEXT = ("",) + tuple(f" of the {o} region" for o in ORGAN) + (
    " in infancy", " in childhood", " in adulthood", " in old age", " after exercise",
    " at rest", " during sleep")
SEVERITY = ("", " (mild)", " (severe)", " (episodic)")
ANATOMY_LAYER = ("",) + tuple(f", layer {i}" for i in range(1, 7))
PATHWAY_KIND = ("", " (canonical)", " (non-canonical)", " (alternative)", " (mitochondrial)",
                " (nuclear)", " (receptor-mediated)", " (stress-induced)",
                " (calcium-dependent)", " (feedback)")
FUNCTION_MOD = ("", "high-affinity ", "low-affinity ", "ATP-dependent ", "calcium-dependent ",
                "zinc-dependent ", "NADH-dependent ", "GTP-dependent ", "magnesium-dependent ",
                "pH-sensitive ", "voltage-gated ", "ligand-gated ")
FUNCTION_SPEC = ("", " (sequence-specific)", " (broad-specificity)", " (allosteric)")
CELL_CONTEXT = ("",) + tuple(f" in {o} cells" for o in ORGAN)
EXPOSURE_DOSE = ("", " (low dose)", " (high dose)", " (short-term)", " (long-term)",
                 " in childhood", " in pregnancy", " at work", " at home")
TITLE_LEAD = ("", "Towards ", "On ", "Revisiting ", "Rethinking ", "Learning ", "Beyond ",
              "Practical ")
SECOND_INITIAL = ("",) + tuple(f" {c}." for c in INITIALS)
PLACE_HEAD = ("Ald", "Bris", "Cal", "Dun", "East", "Fern", "Glen", "Har", "Iron", "Jun",
              "Kes", "Lin", "Mar", "North", "Oak", "Pine", "Queen", "Raven", "Stone", "Thorn",
              "Um", "Val", "West", "Yar", "Zel", "Ash", "Bell", "Cold", "Drift", "Elm")
PLACE_TAIL = ("moor", "ford", "ton", "field", "bury", "wick", "haven", "dale", "gate", "mouth")
CAMPUS = ("", " (North Campus)", " (South Campus)", " (City Campus)", " (Graduate School)")
FIELD_SCOPE = ("",) + tuple(f" for {o}" for o in TITLE_OBJ)
FIELD_METHOD = ("",) + tuple(f" with {m}" for m in TITLE_METHOD)
BRAND_MID = ("", "a", "e", "i", "o", "u", "ar", "el", "in", "on", "ur", "ax", "ex", "iv", "oz")
BRAND_LINE = ("", " Home", " Pro", " Outdoors", " Kids", " Co.", " Studio", " Essentials",
              " Labs", " Sports")
CATEGORY_SCOPE = ("", " for Kids", " for Pets", " Sets", " Parts & Refills")
COLOR_FINISH = ("", " matte", " gloss", " heather", " melange", " pearl", " satin")
