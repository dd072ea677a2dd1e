-- `afr runs prune --before DATE` (run in one transaction; see prune_counts.sql): the
-- runs go last, so every statement sees the same ones. The llm_calls cache stays: it
-- is keyed by prompt, not by run.
{% set unkept -%}
created_at < $before AND (eval_id IS NULL OR eval_id NOT IN (SELECT eval_id FROM eval_runs))
{%- endset %}
{% for table in ["run_answers", "run_symbols", "run_kar_entities", "run_kar_triples",
                 "run_kar_expansions"] %}
DELETE FROM {{ table }} WHERE run_id IN (SELECT run_id FROM runs WHERE {{ unkept }});
{% endfor %}
DELETE FROM runs WHERE {{ unkept }}
