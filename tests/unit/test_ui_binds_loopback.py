"""Security issue 30, point 9: the Dagster UI has no authentication and accepts any Host header, so it
is reachable from this machine only unless someone deliberately puts it behind a proxy (docs/DEPLOY.md)."""

from __future__ import annotations

from pathlib import Path

import yaml

from dagster_project.ui import command
from medallion.settings import Settings

REPO = Path(__file__).resolve().parents[2]
LOOPBACK_DEFAULT = "${MEDALLION_BIND:-127.0.0.1}:"


def test_medallion_ui_binds_loopback(tmp_path: Path) -> None:
    argv, _ = command(Settings(home=tmp_path / "home", database_url="postgresql:///x"), 3123)
    assert argv[argv.index("-h") + 1] == "127.0.0.1" and argv[argv.index("-p") + 1] == "3123"


def test_compose_publishes_every_port_on_loopback_by_default() -> None:
    """Every published port of every service binds to MEDALLION_BIND, 127.0.0.1 unless set; the code
    server only exposes its port to the compose network."""
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    published = {name: service.get("ports", []) for name, service in compose["services"].items()}
    assert published["webserver"] and published["postgres"] and not published["user_code"]
    for name, ports in published.items():
        for port in ports:
            assert isinstance(port, str) and port.startswith(LOOPBACK_DEFAULT), (name, port)
    assert "127.0.0.1" in (REPO / "docs" / "DEPLOY.md").read_text().split("## The Dagster UI")[1][:2000]
