"""What a read-only Spark store runs (``afr sql``): queries over afr's tables, and nothing
that runs code of the JVM's choosing or reads the machine's files.

Spark SQL can call any Java method (``reflect``), run a shell command per row
(``SELECT TRANSFORM(…) USING 'script'``), read any file as a table (``parquet.`/path```)
and resolve names from text (``IDENTIFIER('…')``, which would hide the rest from this
check). The session already refuses SQL on files (``spark.sql.runSQLOnFiles`` is off in
``afr.store.spark_store``); this check refuses them all by name, on the parsed statement,
before Spark sees it, with one line saying why. Statements other than queries (``ADD
JAR``, ``LOAD DATA``, ``CREATE FUNCTION … USING JAR``, ``SET``, ``EXECUTE IMMEDIATE``)
never run on a read-only store at all (``SparkStore._fetch``).
"""

from __future__ import annotations

from sqlglot import exp

from afr.errors import StoreError

# Functions that call a Java method named in their arguments.
JVM_CALLS = frozenset({"reflect", "java_method", "try_reflect"})
# Functions that read a file named in their arguments (protobuf: a descriptor file;
# read_files: offered by some Spark distributions, not by Apache Spark 4.3 itself).
FILE_READERS = frozenset({"from_protobuf", "to_protobuf", "read_files"})
# IDENTIFIER('…'): a table or function name given as text, which the parse cannot see.
NAMES_FROM_TEXT = frozenset({"identifier"})
# Data sources Spark reads a path of as a table: ``format.`/path```.
FILE_SOURCES = frozenset({
    "parquet", "orc", "json", "csv", "text", "avro", "binaryfile", "xml", "delta",
    "iceberg", "hudi", "jdbc", "libsvm", "image"})


def refuse_unsafe(statement: exp.Expression) -> None:
    """Raise StoreError (one line) if ``statement`` calls a JVM method, reads a file, runs
    a script, or names things through text; return otherwise."""
    for node in statement.walk():
        reason = _unsafe(node)
        if reason:
            raise StoreError(f"afr sql on Spark refuses {reason}")


def _unsafe(node: exp.Expression) -> str | None:
    if isinstance(node, exp.QueryTransform):
        return "SELECT TRANSFORM … USING: it runs a program of the machine"
    if isinstance(node, exp.Table) and node.db.lower() in FILE_SOURCES:
        return f"reading files as a table ({node.db}.`…`): query afr's tables by name"
    if not isinstance(node, exp.Func):
        return None
    name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
    if name in JVM_CALLS:
        return f"{name}(): it calls Java methods"
    if name in FILE_READERS:
        return f"{name}(): it reads files"
    if name in NAMES_FROM_TEXT:
        return f"{name}(): write the name itself"
    return None
