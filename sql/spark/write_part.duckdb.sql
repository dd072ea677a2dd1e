-- A Parquet part of a Spark store's table (afr.store.spark_tables), written by DuckDB in
-- the table's column types: bulk rows (vectors, index postings, a load's staged SKB)
-- reach the store without a Spark job.
COPY (
    SELECT {% for name, kind in columns %}CAST("{{ name }}" AS {{ kind }}) AS "{{ name }}"{{ ", " if not loop.last }}{% endfor %}

    FROM {{ source }} AS afr_rows
) TO '{{ path }}' (FORMAT parquet)
