"""Library scale: a whole folder of archives indexed into Parquet shards and a DuckDB database.

``brson scan`` walks the corpus (:mod:`brson.scan.corpus`), parses each file in a worker process
(:mod:`brson.scan.extract`, one pure function of the file's bytes), writes each batch's rows as
one shard of Parquet files committed by a single rename (:mod:`brson.scan.shards`), on a local
process pool or a Dask cluster (:mod:`brson.scan.engine`); :mod:`brson.scan.index` keeps the
DuckDB views over the shards and :mod:`brson.scan.reports` the named reports of ``brson
query``.  docs/scan.md describes the tables and the million-file design.

``duckdb``, ``pyarrow`` (extra ``scan``) and ``dask.distributed`` (extra ``dask``) are
imported only when used, so ``brson`` itself starts without them.
"""
