-- The vector extension needs a superuser once; afr itself then runs without one.
CREATE EXTENSION IF NOT EXISTS vector;
