"""`afr synth`: write a STaRK-like synthetic SKB with questions (a benchmark tool)."""

from __future__ import annotations

from pathlib import Path

import click

from .context import Context, UsageProblem, handle_errors, pass_ctx, warn

# The fewest nodes per --like (afr.synth.fewest_nodes; a test keeps this in step): written
# out, as afr.synth takes longer to import than every other command needs to start.
FEWEST_NODES = {"prime": 100, "mag": 40, "amazon": 40}



@click.command()
@click.argument("out_dir", type=click.Path(path_type=Path))
@click.option("--like", type=click.Choice(["prime", "mag", "amazon"]), default="prime",
              show_default=True, help="Schema shape: prime (10 node / 18 edge types, all "
              "types answer), mag (answers are papers), amazon (answers are products).")
@click.option("--nodes", type=click.IntRange(min(FEWEST_NODES.values())), default=1000,
              show_default=True,
              help="Number of nodes, at least 10 per node type: " + ", ".join(
                  f"{like} {n}" for like, n in FEWEST_NODES.items())
              + " (STaRK: PRIME 130000, MAG 1900000, AMAZON 1040000).")
@click.option("--edges", type=click.IntRange(1), default=None,
              help="Number of edges [default: PRIME 62, MAG 21, AMAZON 9 per node]. "
              "Tiny graphs may get fewer: a relation never fills >30% of its possible pairs.")
@click.option("--questions", type=click.IntRange(0), default=100, show_default=True,
              help="Questions to generate into questions.csv.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True,
              help="Random seed: the same arguments and seed give the same files.")
@click.option("--noise", type=click.FloatRange(0, 1), default=0.3, show_default=True,
              help="Share of questions whose cypher_noisy column carries one or two "
              "LLM-like mistakes (the rest repeat the gold Cypher).")
@pass_ctx
@handle_errors
def synth(ctx: Context, out_dir: Path, like: str, nodes: int, edges: int | None,
          questions: int, seed: int, noise: float) -> None:
    """Generate a STaRK-like synthetic SKB with questions — benchmark data, not a model.

    Writes OUT_DIR/skb.json, nodes.jsonl.gz, edges.csv.gz and questions.csv (columns id,
    query, answer_ids, target_type, cypher, cypher_noisy, noise). Degrees are
    heavy-tailed; names and texts come from invented vocabularies. Each question is a
    relational template sampled from the graph plus a property of a gold answer; its
    gold answers come from afr's reference grounding. `cypher` is the gold Cypher,
    `cypher_noisy` a variant with LLM-like mistakes: replay either with
    `afr eval OUT_DIR --replay cypher` to measure retrieval with no LLM at all.
    split/val.index and split/test.index each hold a seeded half of the question ids:
    calibrate the fusion's weights on one (`afr index --calibrate OUT_DIR --split val`)
    and measure on the other (`afr eval OUT_DIR --split test`).

    \b
    Examples:
      afr synth ./synth-small --like mag --nodes 2000 --questions 50
      afr synth ./synth-prime --like prime --nodes 130000 --edges 8000000 --questions 200
      afr load ./synth-small && afr embed
    """
    from afr.synth import generate

    if nodes < FEWEST_NODES[like]:
        raise UsageProblem(f"--nodes must be at least {FEWEST_NODES[like]} for "
                           f"--like {like} (10 per node type), not {nodes}")
    report = generate(out_dir, like=like, nodes=nodes, edges=edges, questions=questions,
                      seed=seed, noise=noise, progress=ctx.progress)
    s = report.seconds
    click.echo(f"wrote {report.out}: {report.like}-like, {report.nodes:,} nodes, "
               f"{report.edges:,} edges, {report.questions} questions "
               f"({report.noisy} with noisy Cypher) in {s['total']:.1f} s "
               f"(graph {s['graph']:.1f}, nodes {s['nodes']:.1f}, edges {s['edges']:.1f}, "
               f"questions {s['questions']:.1f})")
    if edges is not None and report.edges < edges:
        warn(f"{report.edges:,} of {edges:,} edges fit: no relation fills more than 30% of "
             "its possible pairs (try more nodes)")
    if report.questions < questions:
        warn(f"only {report.questions} of {questions} questions could be made from this "
             "graph (try more nodes or edges)")


COMMANDS = [synth]
