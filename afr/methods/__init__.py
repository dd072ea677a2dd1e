"""Retrieval methods, one package each: ``af`` (the Autofocus-Retriever's steps 1–7),
``plain`` (vss, bm25, hybrid), ``kar``, ``sage``, and ``af_sage`` (their composition).
Each is a ``Retriever`` (``afr.methods.base``); ``afr.methods.registry`` names them, and
``afr.pipeline`` runs one and finishes its list (step 8, the run log)."""
