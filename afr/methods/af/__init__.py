"""The Autofocus-Retriever (Boer, Roth & Kramer): steps 1–7 as a method.

``formalize`` (steps 1–2) · ``grounding`` and ``symbols`` (steps 3–5) · ``repair`` (3c) ·
``ranking`` (steps 6–7: ``paper_ranking``, ``hybrid_ranking``) · ``retriever`` (the
steps in order) · ``trace`` (what it did). ``offline``, ``target_type`` and
``write_cypher`` write steps 1–2's query; ``cypher_report`` is `afr cypher`.
"""
