"""Batch evaluation: question sets, metrics with STaRK parity, runs in the store.

``run_eval`` is `afr eval run`; the others read runs back (list, show, export, compare,
plot) or delete one.
Modules load on first use (the command line starts without them)."""

from __future__ import annotations

from afr.lazy import lazy_exports

_EXPORTS = {
    "run_eval": "afr.evaluate.session",
    "calibrate_dense": "afr.evaluate.calibrate",
    "find_eval_run": "afr.evaluate.eval_runs",
    "list_eval_runs": "afr.evaluate.eval_runs",
    "delete_eval_run": "afr.evaluate.eval_runs",
    "summarize": "afr.evaluate.report",
    "compare": "afr.evaluate.report",
    "export_rows": "afr.evaluate.report",
    "EXPORT_COLUMNS": "afr.evaluate.report",
    "plot_data": "afr.evaluate.plots",
    "draw_text": "afr.evaluate.plot_text",
    "write_plots": "afr.evaluate.plot_files",
    "file_format": "afr.evaluate.plot_files",
    "FINAL": "afr.evaluate.variants",
    "METRICS": "afr.evaluate.metrics",
}

__getattr__ = lazy_exports("afr.evaluate", _EXPORTS)

__all__ = list(_EXPORTS)
