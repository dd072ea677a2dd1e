SELECT (SELECT count(*) FROM nodes), (SELECT count(*) FROM emb_{{ variant }})
