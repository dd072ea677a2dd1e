-- For `afr init --print-sql`: what a store opened to be created makes first. afr's tables
-- are then found in afr's schema only, pgvector's type wherever the extension lives.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE SCHEMA IF NOT EXISTS "{{ schema }}";
SELECT set_config('search_path', '"{{ schema }}", ' || quote_ident(n.nspname), false)
FROM pg_extension AS e
JOIN pg_namespace AS n ON n.oid = e.extnamespace
WHERE e.extname = 'vector'
