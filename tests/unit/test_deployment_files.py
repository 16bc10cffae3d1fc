"""The docker-compose reference deployment (docs/ARCHITECTURE.md) is wired consistently.

Docker is not available where the tests run, so these tests read the deployment files
(docker-compose.yml, dagster.yaml, workspace.yaml, Dockerfile) and check that they agree with each
other: what compose publishes, what it sets in each container's environment, what Dagster's
instance config reads from that environment, and where the webserver looks for the code server.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DAGSTER_YAML = ROOT / "deploy" / "dagster.yaml"
WORKSPACE = ROOT / "workspace.yaml"
DOCKERFILE = ROOT / "Dockerfile"

DAGSTER_SERVICES = ("user_code", "webserver", "daemon")
STORAGE_KEYS = ("run_storage", "event_log_storage", "schedule_storage")

_SUBST = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<default>[^}]*))?\}")


def resolve_defaults(value: str, env: dict[str, str] | None = None) -> str:
    """Resolve compose ``${VAR}``, ``${VAR:-default}`` and ``${VAR-default}`` as with ``env`` set.

    With the default empty ``env`` this is what compose does on a machine that sets nothing.
    ``$$`` is compose's escape for a literal ``$``.
    """
    env = env or {}

    def sub(match: re.Match[str]) -> str:
        name, op, default = match.group("name"), match.group("op"), match.group("default")
        if op in (":-", ":?"):
            return env.get(name) or (default if op == ":-" else "")
        if op in ("-", "?"):
            return env.get(name, default if op == "-" else "")
        return env.get(name, "")

    placeholder = "\0"
    return _SUBST.sub(sub, value.replace("$$", placeholder)).replace(placeholder, "$")


def _resolve_tree(node: Any) -> Any:
    if isinstance(node, str):
        return resolve_defaults(node)
    if isinstance(node, dict):
        return {k: _resolve_tree(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve_tree(v) for v in node]
    return node


@pytest.fixture(scope="module")
def compose_raw() -> dict[str, Any]:
    assert COMPOSE.is_file(), "docker-compose.yml is missing at the repository root"
    return yaml.safe_load(COMPOSE.read_text())


@pytest.fixture(scope="module")
def compose(compose_raw: dict[str, Any]) -> dict[str, Any]:
    """docker-compose.yml with every substitution resolved to its default."""
    return _resolve_tree(compose_raw)


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    return compose["services"]


@pytest.fixture(scope="module")
def dagster_yaml() -> dict[str, Any]:
    assert DAGSTER_YAML.is_file(), "deploy/dagster.yaml is missing"
    return yaml.safe_load(DAGSTER_YAML.read_text())


def service_env(service: dict[str, Any]) -> dict[str, str | None]:
    """A service's ``environment`` as a mapping (compose allows a mapping or a KEY=VALUE list)."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        pairs = (item.split("=", 1) if "=" in item else (item, None) for item in env)
        return {k: v for k, v in pairs}
    return {k: (None if v is None else str(v)) for k, v in env.items()}


def command_args(service: dict[str, Any]) -> list[str]:
    command = service.get("command")
    assert command, "service has no command"
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def option_value(args: list[str], *names: str) -> str:
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            return args[i + 1]
        for name in names:
            if name.startswith("--") and arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    raise AssertionError(f"none of {names} in command {args}")


def published_ports(service: dict[str, Any]) -> list[tuple[str | None, str, str]]:
    """(host_ip, host_port, container_port) of each published port, short or long syntax."""
    out: list[tuple[str | None, str, str]] = []
    for port in service.get("ports") or []:
        if isinstance(port, dict):
            out.append((port.get("host_ip"), str(port.get("published", "")), str(port["target"])))
            continue
        parts = str(port).split(":")
        if len(parts) == 3:
            out.append((parts[0], parts[1], parts[2]))
        elif len(parts) == 2:
            out.append((None, parts[0], parts[1]))
        else:
            out.append((None, "", parts[0]))
    return out


def postgres_service_name(services: dict[str, Any]) -> str:
    names = [n for n, s in services.items() if "pgvector/pgvector" in str(s.get("image", ""))]
    assert len(names) == 1, f"expected one pgvector service, found {names}"
    return names[0]


def dagster_postgres_config(dagster_yaml: dict[str, Any]) -> list[dict[str, Any]]:
    """The postgres_db blocks configuring Dagster's run, event log and schedule storage."""
    if "storage" in dagster_yaml:
        assert not any(k in dagster_yaml for k in STORAGE_KEYS), "`storage` excludes the per-kind keys"
        assert set(dagster_yaml["storage"]) == {"postgres"}, "instance storage is not postgres"
        return [dagster_yaml["storage"]["postgres"]["postgres_db"]]
    blocks = []
    for key in STORAGE_KEYS:
        section = dagster_yaml.get(key)
        assert section, f"dagster.yaml configures neither `storage` nor `{key}`"
        assert section["module"].startswith("dagster_postgres"), f"{key} is not a Postgres storage"
        blocks.append(section["config"]["postgres_db"])
    return blocks


def env_lookups(block: dict[str, Any]) -> dict[str, str]:
    """field -> environment variable, for each field that dagster.yaml reads from the environment."""
    return {k: v["env"] for k, v in block.items() if isinstance(v, dict) and "env" in v}


def config_value(block: dict[str, Any], field: str, env: dict[str, str | None]) -> str:
    """A postgres_db field as Dagster resolves it in a container with ``env``."""
    raw = block.get(field)
    return str(env[raw["env"]]) if isinstance(raw, dict) else str(raw)


def test_four_services_exist(services: dict[str, Any]) -> None:
    """Reference deployment: postgres, user_code, webserver and daemon services."""
    assert {"postgres", *DAGSTER_SERVICES} <= set(services)


def test_postgres_is_pgvector_with_healthcheck_and_volume(compose: dict[str, Any]) -> None:
    """Reference deployment: Postgres is pgvector/pgvector, health-checked, on a volume."""
    pg = compose["services"]["postgres"]
    assert str(pg["image"]).startswith("pgvector/pgvector:")
    test = pg["healthcheck"]["test"]
    assert "pg_isready" in (test if isinstance(test, str) else " ".join(test))
    env = service_env(pg)
    assert {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"} <= set(env)
    named = set(compose.get("volumes") or {})
    mounts = [str(v).split(":") for v in pg.get("volumes") or []]
    data = [m for m in mounts if m[0] in named and m[1].startswith("/var/lib/postgresql")]
    assert data, "postgres data is not on a named volume"
    if str(pg["image"]).endswith(("pg18", "18")):
        # PostgreSQL 18+ images refuse a volume at the old /var/lib/postgresql/data path
        assert data[0][1].rstrip("/") == "/var/lib/postgresql"


def test_postgres_credentials_are_substitutable(compose_raw: dict[str, Any]) -> None:
    """Reference deployment: credentials come from ${VAR:-default} substitutions."""
    env = service_env(compose_raw["services"]["postgres"])
    for key in ("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"):
        assert re.fullmatch(r"\$\{" + key + r":-[^}]+\}", env[key] or ""), f"{key}={env[key]!r}"


def test_substitution_helper() -> None:
    """Reference deployment: the helper resolves compose substitutions like compose."""
    assert resolve_defaults("${A:-127.0.0.1}:3000:3000") == "127.0.0.1:3000:3000"
    assert resolve_defaults("${A:-127.0.0.1}:3000", {"A": "0.0.0.0"}) == "0.0.0.0:3000"
    assert resolve_defaults("${A:-x}", {"A": ""}) == "x"
    assert resolve_defaults("${A-x}", {"A": ""}) == ""
    assert resolve_defaults("${A}:5432") == ":5432"
    assert resolve_defaults("$${POSTGRES_USER}") == "${POSTGRES_USER}"


def test_every_published_port_binds_to_localhost_by_default(services: dict[str, Any]) -> None:
    """Reference deployment: nothing is reachable from the network by default."""
    seen = 0
    for name, service in services.items():
        for host_ip, host_port, container_port in published_ports(service):
            seen += 1
            assert host_ip == "127.0.0.1", (
                f"{name} publishes {container_port} on {host_ip or 'all addresses'}"
            )
            assert host_port, f"{name} publishes {container_port} on a random host port"
    assert seen >= 2, "expected the webserver and postgres ports to be published"
    assert "3000" in {c for _, _, c in published_ports(services["webserver"])}
    assert "5432" in {c for _, _, c in published_ports(services["postgres"])}


@pytest.mark.parametrize("name", DAGSTER_SERVICES)
def test_dagster_services_environment(services: dict[str, Any], name: str) -> None:
    """Reference deployment: project code reaches the compose Postgres and its instance."""
    pg_name = postgres_service_name(services)
    pg_env = service_env(services[pg_name])
    env = service_env(services[name])

    url = urlsplit(env.get("MEDALLION_DATABASE_URL") or "")
    assert url.scheme.startswith("postgresql"), f"{name}: MEDALLION_DATABASE_URL is not a postgresql URL"
    assert url.hostname == pg_name, f"{name}: MEDALLION_DATABASE_URL does not point at {pg_name}"
    assert (url.port or 5432) == 5432
    assert url.username == pg_env["POSTGRES_USER"] and url.password == pg_env["POSTGRES_PASSWORD"]
    assert url.path.lstrip("/") == pg_env["POSTGRES_DB"] == "medallion"

    assert env.get("DAGSTER_HOME") == "/opt/dagster/dagster_home"
    dagster_pg = {k for k in env if k.startswith("DAGSTER_PG_")}
    assert dagster_pg, f"{name}: no DAGSTER_PG_* variables"
    assert env.get("MEDALLION_LLM_PROVIDER") == "heuristic"
    assert env.get("MEDALLION_HOME") and env.get("MEDALLION_INBOX")
    assert "OPENAI_API_KEY" in env and "OPENAI_BASE_URL" in env


def test_passthrough_settings_stay_unset_when_not_given(compose_raw: dict[str, Any]) -> None:
    """Reference deployment: unset optional settings do not reach the app as ''.

    An empty MEDALLION_CONFLICT_THRESHOLD or OPENAI_BASE_URL would override the settings'
    defaults with an invalid value, so pass-through variables must be bare names (or use a
    non-empty default).
    """
    for name in DAGSTER_SERVICES:
        env = service_env(compose_raw["services"][name])
        for key, value in env.items():
            if value is None:
                continue
            resolved = resolve_defaults(value)
            assert resolved != "", f"{name}: {key} resolves to an empty string when unset"


def test_shared_inbox_volume(compose: dict[str, Any]) -> None:
    """Reference deployment: MEDALLION_INBOX is one volume shared by the Dagster services."""
    named = set(compose.get("volumes") or {})
    sources = []
    for name in DAGSTER_SERVICES:
        service = compose["services"][name]
        inbox = service_env(service)["MEDALLION_INBOX"]
        mounts = [str(v).split(":") for v in service.get("volumes") or []]
        source = [m[0] for m in mounts if len(m) >= 2 and m[1].rstrip("/") == str(inbox).rstrip("/")]
        assert source and source[0] in named, f"{name}: {inbox} is not on a named volume"
        sources.append(source[0])
    assert len(set(sources)) == 1


@pytest.mark.parametrize("name", ("webserver", "daemon", "user_code"))
def test_depends_on_healthy_postgres(services: dict[str, Any], name: str) -> None:
    """Reference deployment: Dagster services wait for a healthy Postgres."""
    depends = services[name].get("depends_on")
    assert isinstance(depends, dict), f"{name}: depends_on must use the long form with a condition"
    pg_name = postgres_service_name(services)
    assert depends[pg_name]["condition"] == "service_healthy"


def test_commands(services: dict[str, Any]) -> None:
    """Reference deployment: code server, webserver and daemon run the right commands."""
    code = command_args(services["user_code"])
    assert code[:3] == ["dagster", "code-server", "start"]
    assert option_value(code, "-m", "--module-name") == "dagster_project.definitions"
    assert option_value(code, "-h", "--host") == "0.0.0.0"

    web = command_args(services["webserver"])
    assert web[0] == "dagster-webserver"
    assert option_value(web, "-h", "--host") == "0.0.0.0"
    assert option_value(web, "-w", "--workspace") == "workspace.yaml"

    daemon = command_args(services["daemon"])
    assert daemon[:2] == ["dagster-daemon", "run"]
    assert option_value(daemon, "-w", "--workspace") == "workspace.yaml"


def test_dagster_yaml_uses_postgres_from_compose_env(
    dagster_yaml: dict[str, Any], compose: dict[str, Any], services: dict[str, Any]
) -> None:
    """Reference deployment: dagster.yaml reads Postgres settings compose actually sets."""
    pg_name = postgres_service_name(services)
    pg_env = service_env(services[pg_name])
    blocks = dagster_postgres_config(dagster_yaml)
    # databases the postgres service's init scripts (inline compose configs) create
    mounted = {c["source"] for c in services[pg_name].get("configs") or [] if isinstance(c, dict)}
    init_sql = " ".join(
        str(c.get("content", "")) for n, c in (compose.get("configs") or {}).items() if n in mounted
    )
    created = set(re.findall(r"create\s+database\s+\"?(\w+)", init_sql, flags=re.IGNORECASE))
    for name in DAGSTER_SERVICES:
        env = service_env(services[name])
        for block in blocks:
            lookups = env_lookups(block)
            assert {"username", "password", "hostname", "db_name"} <= set(lookups) | set(block)
            for field, var in lookups.items():
                assert env.get(var), f"{name}: dagster.yaml reads {var} ({field}) but compose does not set it"
            assert config_value(block, "hostname", env) == pg_name
            assert config_value(block, "username", env) == pg_env["POSTGRES_USER"]
            assert config_value(block, "password", env) == pg_env["POSTGRES_PASSWORD"]
            assert int(config_value(block, "port", env) if "port" in block else 5432) == 5432
            db = config_value(block, "db_name", env)
            assert db == pg_env["POSTGRES_DB"] or db in created, (
                f"Dagster's database {db!r} is neither POSTGRES_DB nor created by an init script"
            )


def test_dagster_yaml_queued_coordinator_and_no_telemetry(dagster_yaml: dict[str, Any]) -> None:
    """Reference deployment: runs are queued through the daemon; telemetry is off."""
    assert dagster_yaml["run_coordinator"]["class"] == "QueuedRunCoordinator"
    assert dagster_yaml["telemetry"]["enabled"] is False


def test_dagster_yaml_is_a_valid_instance_config(
    dagster_yaml: dict[str, Any], services: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reference deployment: Dagster 1.13 accepts dagster.yaml with the webserver's env.

    Validates against Dagster's own instance schema, resolves the Postgres env lookups the way
    Dagster does and loads the configured run coordinator and launcher classes.
    """
    from dagster import QueuedRunCoordinator
    from dagster._config import Shape, process_config
    from dagster._config.field import resolve_to_config_type
    from dagster._core.instance.config import dagster_instance_config
    from dagster._core.storage.config import pg_config
    from dagster._serdes.config_class import ConfigurableClassData

    for key, value in service_env(services["webserver"]).items():
        if value is not None:
            monkeypatch.setenv(key, value)
    (tmp_path / "dagster.yaml").write_text(DAGSTER_YAML.read_text())
    config, _ = dagster_instance_config(str(tmp_path))

    if "storage" in config:
        result = process_config(resolve_to_config_type(Shape(pg_config())), config["storage"]["postgres"])
        assert result.success, result.errors
        assert result.value["postgres_db"]["hostname"] == postgres_service_name(services)
        assert result.value["postgres_db"]["port"] == 5432

    for key in ("run_coordinator", "run_launcher"):
        if key in config:
            section = config[key]
            data = ConfigurableClassData(
                section["module"], section["class"], yaml.dump(section.get("config") or {})
            )
            instance = data.rehydrate()
            if key == "run_coordinator":
                assert isinstance(instance, QueuedRunCoordinator)


def test_workspace_points_at_user_code_server(services: dict[str, Any]) -> None:
    """Reference deployment: workspace.yaml loads the code server compose starts."""
    workspace = yaml.safe_load(WORKSPACE.read_text())
    entries = [e["grpc_server"] for e in workspace["load_from"] if "grpc_server" in e]
    assert len(entries) == 1, "expected one grpc_server code location"
    grpc = entries[0]
    port = option_value(command_args(services["user_code"]), "-p", "--port")
    assert grpc["host"] == "user_code" and "user_code" in services
    assert int(grpc["port"]) == int(port)
    assert grpc["location_name"] == "medallion_memory"
    reachable = {str(p) for p in services["user_code"].get("expose") or []}
    reachable |= {c for _, _, c in published_ports(services["user_code"])}
    assert port in reachable, f"user_code does not expose its gRPC port {port}"


def test_location_name_matches_pyproject() -> None:
    """Reference deployment: the compose code location has the pyproject's name."""
    import tomllib

    dagster_cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["dagster"]
    workspace = yaml.safe_load(WORKSPACE.read_text())
    grpc = workspace["load_from"][0]["grpc_server"]
    assert grpc["location_name"] == dagster_cfg["code_location_name"]


def _dockerfile_runs() -> list[str]:
    text = DOCKERFILE.read_text()
    logical = re.sub(r"\\\n", " ", text)
    return [
        line.strip() for line in logical.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]


def test_dockerfile_installs_cpu_torch_before_the_project() -> None:
    """Reference deployment: the image installs torch==2.13.0 (CPU) before the project."""
    lines = _dockerfile_runs()
    assert lines[0].split()[0].upper() == "FROM" and "python:3.11" in lines[0]
    installs = [i for i, line in enumerate(lines) if line.upper().startswith("RUN") and "pip install" in line]
    torch = [i for i in installs if "torch==2.13.0" in lines[i]]
    project = [i for i in installs if re.search(r"pip install\s+(?:\S+\s+)*(\.|-e\s+\.)(\s|$)", lines[i])]
    assert torch, "the Dockerfile does not install torch==2.13.0"
    assert "download.pytorch.org/whl/cpu" in lines[torch[0]], "torch is not taken from the CPU wheel index"
    assert project, "the Dockerfile does not install the project"
    assert torch[0] < project[0], "torch must be installed before the project"
    assert not re.search(r"pip install\s+(?:\S+\s+)*(\.|-e\s+\.)(\s|$)", lines[torch[0]])


def test_dockerfile_supports_dagster_yaml(dagster_yaml: dict[str, Any]) -> None:
    """Reference deployment: the image carries dagster.yaml and what it needs."""
    text = DOCKERFILE.read_text()
    home = re.search(r"DAGSTER_HOME=(\S+)", text)
    assert home and home.group(1) == "/opt/dagster/dagster_home"
    assert re.search(
        r"^COPY\s+deploy/dagster\.yaml\s+\S*(\$DAGSTER_HOME|\$\{DAGSTER_HOME\}|/opt/dagster/dagster_home)",
        text,
        re.M,
    )
    assert re.search(r"^WORKDIR\s+/opt/medallion\s*$", text, re.M)
    assert re.search(r"^COPY\s+workspace\.yaml\s", text, re.M), "workspace.yaml is not in the image"
    uses_pg = "storage" in dagster_yaml or any(
        str(dagster_yaml.get(k, {}).get("module", "")).startswith("dagster_postgres") for k in STORAGE_KEYS
    )
    if uses_pg:
        assert re.search(r"pip install[^\n]*dagster-postgres", text), "dagster.yaml needs dagster-postgres"
