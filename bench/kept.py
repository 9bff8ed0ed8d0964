"""
Generated catalogs kept between runs of the benchmark, for the same code only.

A run spends most of its time bulk-loading the synthetic catalogs (about 5 minutes on SQLite,
7 on PostgreSQL). What is loaded depends only on the generator's arguments and on the code
that writes it: the app, its migrations, the settings and the generator. So a catalog is kept
under a digest of all of those, and a later run of the same code copies it instead of loading
it again; any change to that code is another digest, and a new load. The copy is the catalog
as it was just after loading, before anything measured it.

- SQLite: a copy of the database file (through SQLite's backup), with what the generator
  reported beside it, in ``$XDG_CACHE_HOME/catalog-bench`` (``~/.cache`` by default).
- PostgreSQL: a database on the same server (``<name>_bench_kept_<digest>``), which the
  catalog is copied from as a template; what the generator reported is its comment.

The figures of the load itself (``import_seconds``, ``import_objects``) are those of the run that
loaded it, and the results say so (``catalog_reused``).
"""

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
CODE = ["releases", "config", "bench/generate.py", "requirements.txt"]


def kept_folder():
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "catalog-bench"


def digest(features, releases):
    """The code that makes a generated catalog, and the generator's arguments."""
    hashed = hashlib.sha256(f"{features} {releases}".encode())
    for part in CODE:
        path = ROOT / part
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            if "__pycache__" in file.parts:
                continue
            hashed.update(str(file.relative_to(ROOT)).encode())
            hashed.update(file.read_bytes())
    return hashed.hexdigest()[:16]


def restore(key, workdir, database_url):
    """
    The generator's report of the catalog kept under ``key``, copied into place (the SQLite
    file in ``workdir``, or the PostgreSQL database of ``database_url``); None when none is
    kept.
    """
    if database_url:
        return _restore_postgres(key, database_url)
    folder = kept_folder() / key
    report = folder / "generated.json"
    if not report.exists():
        return None
    _copy_sqlite(folder / "catalog.sqlite3", Path(workdir) / "catalog.sqlite3")
    return json.loads(report.read_text())


def keep(key, workdir, database_url, generated):
    """Keep the catalog just generated under ``key``, in place of any other kept before."""
    if database_url:
        return _keep_postgres(key, database_url, generated)
    for other in kept_folder().glob("*"):
        if other.is_dir() and _replaced_by(_report(other), generated):
            shutil.rmtree(other, ignore_errors=True)
    folder = kept_folder() / key
    folder.mkdir(parents=True, exist_ok=True)
    _copy_sqlite(Path(workdir) / "catalog.sqlite3", folder / "catalog.sqlite3")
    (folder / "generated.json").write_text(json.dumps(generated))


def forget(key, database_url):
    """Drop the catalog kept under ``key`` (the one ``database_url``'s name would restore)."""
    if not database_url:
        shutil.rmtree(kept_folder() / key, ignore_errors=True)
        return
    import psycopg

    with psycopg.connect(maintenance_url(database_url), autocommit=True) as connection:
        _drop(connection, _kept_name(_name(database_url), key))


def _report(folder):
    report = folder / "generated.json"
    return report.read_text() if report.exists() else None


def _replaced_by(report, generated):
    """
    Whether the kept catalog whose generator's ``report`` (JSON, None when lost) makes way for
    ``generated``: one of the same size (another version of the code) is replaced, not piled up.
    """
    if not report:
        return True
    kept = json.loads(report)
    return (kept.get("features"), kept.get("releases")) == (
        generated.get("features"),
        generated.get("releases"),
    )


def _copy_sqlite(source, target):
    with (
        contextlib.closing(sqlite3.connect(source)) as origin,
        contextlib.closing(sqlite3.connect(target)) as copy,
    ):
        origin.backup(copy)


# --- PostgreSQL: kept databases, copied as templates -----------------------------------------


def maintenance_url(database_url):
    """The same server's ``postgres`` database: where databases are created and dropped."""
    return urlsplit(database_url)._replace(path="/postgres").geturl()


def _name(database_url):
    return urlsplit(database_url).path.lstrip("/")


def _kept_name(database, key):
    return f"{database.rsplit('_bench_', 1)[0]}_bench_kept_{key}"


def _drop(connection, name):
    from psycopg import sql

    connection.execute(
        sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
    )


def _copy(connection, name, template):
    """A new database ``name``, a file-by-file copy of ``template``."""
    from psycopg import sql

    connection.execute(
        sql.SQL("CREATE DATABASE {} TEMPLATE {} STRATEGY FILE_COPY").format(
            sql.Identifier(name), sql.Identifier(template)
        )
    )


def _restore_postgres(key, database_url):
    import psycopg

    database = _name(database_url)
    kept = _kept_name(database, key)
    with psycopg.connect(maintenance_url(database_url), autocommit=True) as connection:
        row = connection.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
            [kept],
        ).fetchone()
        if row is None or not row[0]:
            return None
        _drop(connection, database)
        _copy(connection, database, kept)
        return json.loads(row[0])


def _keep_postgres(key, database_url, generated):
    import psycopg
    from psycopg import sql

    database = _name(database_url)
    kept = _kept_name(database, key)
    prefix = kept.rsplit("_", 1)[0] + "_"
    with psycopg.connect(maintenance_url(database_url), autocommit=True) as connection:
        others = connection.execute(
            "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database"
            " WHERE starts_with(datname, %s)",
            [prefix],
        ).fetchall()
        for name, report in others:
            if _replaced_by(report, generated):
                _drop(connection, name)
        _copy(connection, kept, database)
        connection.execute(
            sql.SQL("COMMENT ON DATABASE {} IS {}").format(
                sql.Identifier(kept), sql.Literal(json.dumps(generated))
            )
        )
