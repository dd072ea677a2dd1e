"""What AF did for one question, step by step: what the run log, ``--explain`` and the
evaluation's variants read."""

from __future__ import annotations

from dataclasses import dataclass

from afr.methods.af.formalize import Formalized
from afr.methods.af.grounding import GroundedCypher
from afr.methods.af.ranking import RankInput
from afr.methods.af.repair import RepairRound


@dataclass(frozen=True)
class AfTrace:
    formalized: Formalized  # steps 1–2
    grounded: GroundedCypher  # steps 3–5 of the Cypher used
    repair: RepairRound | None  # step 3c, when it ran
    cypher: str  # the Cypher used: the repaired one when the repair was used
    ranking: str  # paper | hybrid: how steps 6–7 ranked
    rank_input: RankInput  # what steps 6–7 ranked (the variants rank it again)
    outcome: str  # valid | fixed | repaired | relaxed | unanswerable | failed

    @property
    def grounded_answers(self) -> list[tuple[int, int]]:
        """Step 5's answers as the whole Cypher selects them (a related target's name
        conditions applied: ``afr.methods.af.target_names``)."""
        return list(self.rank_input.grounded)
