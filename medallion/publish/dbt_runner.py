"""The dbt project as the engine sees it: where it is, how dbt connects, and a prepared manifest.

No Dagster here: the Dagster asset wiring over the same project is ``dagster_project/dbt.py``.

dbt reads its connection from ``dbt_project/profiles.yml``, which takes every value from
``MEDALLION_DBT_*`` variables; :func:`dbt_env` derives them from the same settings as the engine
(the embedded server's socket directory becomes the host), so dbt and the engine always talk to the
same database. The manifest is prepared explicitly (``dbt parse``) whenever the project's files
changed, so tests, CI and ``make demo`` load current definitions, not only ``dagster dev``.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from psycopg.conninfo import conninfo_to_dict

from medallion.db.connection import ensure_ready
from medallion.settings import Settings

DBT_PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
_SOURCE_STAMP = ".medallion_source_hash"
_PARSED_DIRS = ("models", "macros", "seeds", "tests")
_PARSED_FILES = ("dbt_project.yml", "profiles.yml")
_ENV_KEYS = ("MEDALLION_DBT_HOST", "MEDALLION_DBT_PORT", "MEDALLION_DBT_USER", "MEDALLION_DBT_PASSWORD",
             "MEDALLION_DBT_DBNAME")

MANIFEST_PATH = DBT_PROJECT_DIR / "target" / "manifest.json"
PARSE_STATES_KEPT = 8  # databases whose parse state is kept (a test run builds against many)
_PARTIAL_PARSE = "partial_parse.msgpack"


def dbt_env(settings: Settings) -> dict[str, str]:
    """The ``MEDALLION_DBT_*`` variables profiles.yml reads, from the engine's settings.

    dbt logs in as the administrative login (it acts as ``medallion_owner`` via the profile's role),
    the same login that runs migrations; it starts the embedded server and migrates if needed.
    """
    params = conninfo_to_dict(ensure_ready(settings))
    return {
        "MEDALLION_DBT_HOST": str(params.get("host") or "localhost"),
        "MEDALLION_DBT_PORT": str(params.get("port") or "5432"),
        "MEDALLION_DBT_USER": str(params.get("user") or "postgres"),
        "MEDALLION_DBT_PASSWORD": str(params.get("password") or ""),
        "MEDALLION_DBT_DBNAME": str(params.get("dbname") or "medallion"),
    }


@contextmanager
def dbt_environment(settings: Settings) -> Iterator[dict[str, str]]:
    """Point dbt subprocesses started inside the block at the settings' database.

    dagster-dbt starts dbt with a copy of ``os.environ``, so the variables are set for the block and
    restored after it (runs in one process are sequential; the multiprocess executor forks per run).
    """
    env = dbt_env(settings)
    saved = {key: os.environ.get(key) for key in _ENV_KEYS}
    os.environ.update(env)
    try:
        yield env
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def build_target(env: Mapping[str, str], root: Path = MANIFEST_PATH.parent) -> Iterator[Path]:
    """A target directory of its own for one ``dbt build`` against the database ``env`` names (the
    ``MEDALLION_DBT_*`` variables), seeded with dbt's parse state from the last build against it.

    dbt parses the whole project again (about 5 s of every build) when the connection differs from
    the one its saved parse state was made with; the prepared manifest's state is made with
    profiles.yml's defaults, never with the database a run targets. So each database keeps its own
    state under ``<root>/parse_state/``, the last :data:`PARSE_STATES_KEPT` of them. A build that
    succeeds leaves nothing else behind (each build's directory holds about 6 MB of artefacts); one
    that raises keeps its directory (``dbt.log``, ``run_results.json``) for inspection.
    """
    state = parse_state(env, root)
    states = state.parent
    root.mkdir(parents=True, exist_ok=True)
    target = Path(tempfile.mkdtemp(prefix="dbt_build-", dir=root))
    if state.exists():
        shutil.copyfile(state, target / _PARTIAL_PARSE)
    yield target
    made = target / _PARTIAL_PARSE
    if made.exists():
        states.mkdir(exist_ok=True)
        partial = state.with_suffix(f".{os.getpid()}.part")  # whole files only: builds may run side by side
        shutil.copyfile(made, partial)
        os.replace(partial, state)
        for old in sorted(states.glob("*.msgpack"), key=_modified)[:-PARSE_STATES_KEPT]:
            old.unlink(missing_ok=True)
    shutil.rmtree(target, ignore_errors=True)


def parse_state(env: Mapping[str, str], root: Path = MANIFEST_PATH.parent) -> Path:
    """Where dbt's parse state for the database ``env`` names is kept (see :func:`build_target`)."""
    key = hashlib.sha256("|".join(env.get(k, "") for k in _ENV_KEYS if k != "MEDALLION_DBT_PASSWORD")
                         .encode()).hexdigest()[:16]
    return root / "parse_state" / f"{key}.msgpack"


def _modified(path: Path) -> float:
    """A file's modification time; 0 for one another process has just removed."""
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def source_hash(project_dir: Path = DBT_PROJECT_DIR) -> str:
    """Hash of every file dbt parses: a change to any of them makes the manifest stale."""
    digest = hashlib.sha256()
    paths = [project_dir / name for name in _PARSED_FILES]
    for folder in _PARSED_DIRS:
        paths.extend(sorted(p for p in (project_dir / folder).rglob("*") if p.is_file()))
    for path in paths:
        digest.update(str(path.relative_to(project_dir)).encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def dbt_executable() -> str:
    """The ``dbt`` installed next to this Python (the project's venv), else whatever is on PATH."""
    beside = Path(sys.executable).with_name("dbt")
    return str(beside) if beside.exists() else "dbt"


# Where `medallion docs` and `medallion dbt` let dbt write (DBT_TARGET_PATH): away from the parsed
# manifest in target/, which names the `medallion` database and would otherwise be overwritten by a
# command run against another one.
CLI_TARGET_DIR = DBT_PROJECT_DIR / "target" / "cli"


def prepare_manifest(force: bool = False) -> Path:
    """Run ``dbt parse`` when the manifest is missing or older than the project's files.

    ``dbt parse`` needs no database connection; profiles.yml falls back to its defaults. Processes
    that load the Dagster definitions at the same moment (pytest workers, a daemon and a webserver)
    take turns on a lock file beside the manifest: one parses, the others find it current, and no
    process reads a manifest another is still writing.
    """
    manifest = MANIFEST_PATH
    manifest.parent.mkdir(parents=True, exist_ok=True)
    with (manifest.parent / ".medallion_parse.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        stamp = manifest.parent / _SOURCE_STAMP
        current = source_hash()
        if not force and manifest.exists() and stamp.exists() and stamp.read_text() == current:
            return manifest
        command = [dbt_executable(), "parse", "--quiet", "--project-dir", str(DBT_PROJECT_DIR),
                   "--profiles-dir", str(DBT_PROJECT_DIR)]
        # parse with profiles.yml's defaults, never a caller's database: the manifest names `medallion`
        env = {key: value for key, value in os.environ.items() if key not in _ENV_KEYS}
        result = subprocess.run(command, capture_output=True, text=True, check=False,  # noqa: S603
                                cwd=DBT_PROJECT_DIR, env=env)
        if result.returncode != 0:
            raise RuntimeError(f"dbt parse failed; fix the dbt project and retry:\n{result.stdout}\n{result.stderr}")
        stamp.write_text(current)
        return manifest
