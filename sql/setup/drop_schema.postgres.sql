-- A schema this process created for a load that then failed: removed with what is in it.
DROP SCHEMA IF EXISTS "{{ schema }}" CASCADE
