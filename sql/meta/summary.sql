SELECT (SELECT count(*) FROM nodes), (SELECT count(*) FROM edges),
       (SELECT count(*) FROM runs), (SELECT count(*) FROM llm_calls)
