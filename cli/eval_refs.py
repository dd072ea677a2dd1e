"""How `afr eval compare` and `afr eval plot` name a run, or one list of a run."""

from __future__ import annotations


def run_and_variant(store, ref: str):
    """``EVAL_ID`` or ``EVAL_ID@VARIANT`` → (the run, the variant or None)."""
    from afr.evaluate import find_eval_run

    run_ref, sep, variant = ref.rpartition("@")
    if not sep:
        return find_eval_run(store, ref), None
    return find_eval_run(store, run_ref), variant
