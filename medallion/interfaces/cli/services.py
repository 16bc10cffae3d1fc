"""Operations: the drift audit, the wiki, the MCP server, the dbt docs and passthrough, the Dagster UI."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from medallion.interfaces.cli.shared import (
    JsonOpt,
    acting_capability,
    app,
    connect_or_fail,
    emit_json,
    err,
    fail,
    load_settings,
    out,
    require_admin,
)


@app.command("audit")
def audit_cmd(as_json: JsonOpt = False) -> None:
    """Run the drift audit now (A1); exit 1 when any finding is an error."""
    from medallion.audit import drift

    settings = load_settings()
    conn = connect_or_fail(settings)
    require_admin(acting_capability(settings, conn))
    with err.status("auditing Bronze, Silver, projections and stale facts…"):
        report = drift.run_audit(conn, settings, hindsight_sample=drift.configured_sampler(settings))
        drift.store(conn, report)
    if as_json:
        emit_json(report.as_json())
    elif not report.findings:
        out.print(f"drift audit {report.run_id}: clean ({report.seconds:.1f}s)")
    else:
        table = Table("check", "severity", "namespace", "detail", title=f"drift audit {report.run_id}")
        for f in report.findings:
            table.add_row(f.check, f.severity, f.namespace or "", f.detail)
        out.print(table)
    raise typer.Exit(0 if report.ok else 1)


@app.command("wiki")
def wiki_cmd(as_json: JsonOpt = False) -> None:
    """Compile the wiki from the ledger now (G10)."""
    from medallion.publish.wiki import compile_wiki
    from medallion.serve.tools import open_tools

    settings = load_settings()
    conn = connect_or_fail(settings)
    require_admin(acting_capability(settings, conn))
    with open_tools(None, settings, origin="cli") as tools:
        result = compile_wiki(settings, conn, tools)
    summary = {"pages": len(result.pages), "removed": len(result.removed), "root": str(settings.wiki_root),
               "ledger_hash": result.ledger_hash}
    if as_json:
        emit_json(summary)
    else:
        out.print(f"{summary['pages']} pages in {summary['root']} ({summary['removed']} removed)")


@app.command("mcp")
def mcp_cmd(http: Annotated[int | None, typer.Option("--http", help="Serve streamable HTTP on 127.0.0.1:PORT.")]
            = None) -> None:
    """The MCP server over the tools (stdio by default); the token comes from MEDALLION_TOKEN or the request."""
    from medallion.interfaces import mcp_server

    mcp_server.main(http_port=http)


@app.command("docs")
def docs(
    port: Annotated[int, typer.Option("--port", help="Port of the docs site on 127.0.0.1.")] = 8580,
    generate_only: Annotated[bool, typer.Option("--generate-only", help="Generate, do not serve.")] = False,
    serve_only: Annotated[bool, typer.Option(
        "--serve-only", help="Serve the docs generated last (by --generate-only), without generating again.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Generate the dbt docs (the data dictionary site) and serve them on 127.0.0.1."""
    from medallion.publish import dbt_runner
    from medallion.publish.dbt_runner import DBT_PROJECT_DIR, dbt_environment, dbt_executable

    if serve_only and (generate_only or as_json):
        fail("--serve-only serves until stopped and reports nothing: leave out --generate-only and --json")
    settings = load_settings()
    target = dbt_runner.CLI_TARGET_DIR
    if serve_only and not (target / "catalog.json").exists():
        fail(f"no generated docs in {target}: run `medallion docs --generate-only` first, or `medallion docs`")
    os.environ["DBT_TARGET_PATH"] = str(target)  # generate and serve from there
    base = [dbt_executable(), "--quiet"]
    where = ["--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR)]
    with dbt_environment(settings):
        try:
            code = 0 if serve_only else subprocess.call([*base, "docs", "generate", *where], cwd=DBT_PROJECT_DIR)
        except KeyboardInterrupt:  # Ctrl-C while dbt generates: dbt stops too (same terminal)
            fail("stopped before the docs were generated", 130)
        if code != 0:
            fail("dbt docs generate failed: run `medallion materialize` first so the relations exist", code)
        if generate_only or as_json:
            if as_json:
                emit_json({"generated": True, "catalog": str(target / "catalog.json"),
                           "url": f"http://127.0.0.1:{port}"})
            else:
                out.print(f"dbt docs generated in {target}")
            return
    _serve_docs(target, port)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """The docs site's files, without a log line per request."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        return


def _serve_docs(directory: Path, port: int) -> None:
    """Serve the generated site (``index.html``, ``manifest.json``, ``catalog.json``) until Ctrl-C,
    which stops it with one line: what ``dbt docs serve`` does, without its traceback on Ctrl-C."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        fail(f"cannot serve the docs on 127.0.0.1:{port}: {exc.strerror or exc} (choose another --port)")
    out.print(f"dbt docs on http://127.0.0.1:{port} (Ctrl-C to stop)")
    sys.stdout.flush()
    with server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            out.print("stopped")


@app.command("dbt", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def dbt_passthrough(ctx: typer.Context) -> None:
    """Run any dbt command against this project's database, e.g. `medallion dbt -- show -s review_queue`."""
    from medallion.publish.dbt_runner import CLI_TARGET_DIR, DBT_PROJECT_DIR, dbt_environment, dbt_executable

    os.environ.setdefault("DBT_TARGET_PATH", str(CLI_TARGET_DIR))
    with dbt_environment(load_settings()):
        where = ["--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR)]
        raise typer.Exit(subprocess.call([dbt_executable(), *ctx.args, *where], cwd=DBT_PROJECT_DIR))


@app.command("ui")
def ui(port: Annotated[int, typer.Option("--port")] = 3000) -> None:
    """Open the Dagster UI on 127.0.0.1 (dagster dev on this project), on the instance `materialize` records
    its runs in: DAGSTER_HOME when set, else $MEDALLION_HOME/dagster."""
    load_settings()  # a bad setting is named here, in one line, rather than by the code location
    # the code location's launcher (dagster_project/ui.py) resolves the instance by the same rule as
    # `medallion materialize`; it runs as a process, since the engine never imports Dagster
    raise typer.Exit(subprocess.call([sys.executable, "-m", "dagster_project.ui", "--port", str(port)]))
