"""How sure an answer list is: which graph answers rest on exact name matches, and when
every graph answer comes from far scope expansion instead.

A constant's candidates start with the nodes whose name or alias equals the name written
(``SymbolCandidates.exact``), and all of them enter scope together at the first level. So a
graph answer at ``exact_level`` (the first level, when every constant has an exact match)
is linked to the very entities the question names. Answers beyond it come from similar
names: expanded scope, weaker evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from afr.pipeline.result import AskResult, RankedAnswer

#: Levels from here on reach far past a name's closest matches (41 of l_max 100's 11 levels).
FAR_LEVEL = 27


@dataclass
class Confidence:
    exact_level: int = 0  # graph answers at or below this level rest on exact name matches
    exact_names: dict[str, int] = field(default_factory=dict)  # constant var → exact matches
    notes: list[str] = field(default_factory=list)

    def rests_on_exact_names(self, answer: RankedAnswer) -> bool:
        return (answer.source in ("graph", "both") and answer.level is not None
                and answer.level <= self.exact_level)


def assess(result: AskResult) -> Confidence:
    """What the table of ``result`` can claim (see the module's docstring)."""
    out = Confidence()
    grounding = result.grounding
    if grounding is None or result.resolved is None:
        return out
    constants = {var: s for var, s in result.symbols.items()
                 if s.constant and var in result.resolved.symbols}
    if not constants:
        return out
    out.exact_names = {var: s.exact for var, s in constants.items()}
    fewest = min(out.exact_names.values())
    # all exact matches of a constant enter together, at the first level (GSymbol.lead)
    out.exact_level = grounding.levels[0] if fewest >= 1 and grounding.levels else 0
    graph_levels = [a.level for a in result.answers
                    if a.source in ("graph", "both") and a.level is not None]
    names = ", ".join(repr(_name(constants[v].search)) for v in constants)
    if not graph_levels:
        return out
    nearest = min(graph_levels)
    far = nearest >= FAR_LEVEL
    if out.exact_level and nearest > out.exact_level:
        out.notes.append(
            f"no graph answer is linked to the exact name matches of {names} by the "
            f"relations asked; they come from expanded scope (level {nearest} and beyond: "
            "nodes with similar names)" + (", far from the names asked: treat them as "
                                           "guesses" if far else ""))
    elif not out.exact_level and far:
        out.notes.append(
            f"no exact name match for {names}, and every graph answer comes from far "
            f"expansion (level {nearest} and beyond): treat them as guesses")
    return out


def _name(search: str | None) -> str:
    return (search or "").split(" | ")[0]
