"""The deployments in docs/DEPLOY.md say what their files hold: the Helm values, dagster.yaml, compose.

No cluster and no Docker here, so these tests read the files: deploy/helm/values.yaml (values for
the dagster/dagster chart) carries what a Kubernetes deployment depends on; its run queue is the one
docker compose runs (dagster.yaml), checked against Dagster's own config schema and its own
tag-limit counter; and compose's daemon is the one that drains that queue.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
HELM_VALUES = ROOT / "deploy" / "helm" / "values.yaml"
DAGSTER_YAML = ROOT / "deploy" / "dagster.yaml"
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
APP_LOGINS = ("MEDALLION_DATABASE_URL", "MEDALLION_ENGINE_DATABASE_URL", "MEDALLION_TOOL_DATABASE_URL")
PARTITION_LIMIT = {"key": "dagster/partition", "value": {"applyLimitPerUniqueValue": True}, "limit": 1}


@pytest.fixture(scope="module")
def helm() -> dict[str, Any]:
    values = yaml.safe_load(HELM_VALUES.read_text())
    assert isinstance(values, dict), "deploy/helm/values.yaml is not a YAML mapping"
    return values


@pytest.fixture(scope="module")
def instance() -> dict[str, Any]:
    return yaml.safe_load(DAGSTER_YAML.read_text())


@pytest.fixture(scope="module")
def deployment(helm: dict[str, Any]) -> dict[str, Any]:
    user = helm["dagster-user-deployments"]
    assert user["enabled"] is True, "no user code deployment: the webserver would load no code"
    assert len(user["deployments"]) == 1, "expected exactly one code location"
    return user["deployments"][0]


def _queue(helm: dict[str, Any]) -> dict[str, Any]:
    coordinator = helm["dagsterDaemon"]["runCoordinator"]
    assert helm["dagsterDaemon"]["enabled"] is True and coordinator["enabled"] is True
    assert coordinator["type"] == "QueuedRunCoordinator"
    return coordinator["config"]["queuedRunCoordinator"]


def _walk(node: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every (path, leaf or key) of a YAML tree, keys included, for searching it."""
    found: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            found.append((f"{path}.{key}", key))
            found.extend(_walk(value, f"{path}.{key}"))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.extend(_walk(value, f"{path}[{i}]"))
    else:
        found.append((path, node))
    return found


def _coordinator_from(section: dict[str, Any]):
    """The run coordinator Dagster builds from an instance's ``run_coordinator`` section (config checked)."""
    from dagster._serdes.config_class import ConfigurableClassData

    data = ConfigurableClassData(section["module"], section["class"], yaml.dump(section.get("config") or {}))
    return data.rehydrate()


def _run(**tags: str):
    from dagster._core.storage.dagster_run import DagsterRun

    return DagsterRun(job_name="materialize_all", tags=tags)


# ------------------------------------------------------------------------------------------------
# Helm values


def test_helm_runs_each_run_as_a_kubernetes_job(helm: dict[str, Any]) -> None:
    """Kubernetes: runs are launched by the K8sRunLauncher, from inside the cluster."""
    launcher = helm["runLauncher"]
    assert launcher["type"] == "K8sRunLauncher"
    assert launcher["config"]["k8sRunLauncher"]["loadInclusterConfig"] is True


def test_helm_queue_limits_one_run_per_namespace_partition(helm: dict[str, Any]) -> None:
    """Kubernetes: the daemon's queue allows one run per namespace partition and caps backfills."""
    queue = _queue(helm)
    limits = queue["tagConcurrencyLimits"]
    assert PARTITION_LIMIT in limits, f"no per-partition limit of 1 in {limits}"
    backfill = [limit for limit in limits if limit["key"] == "dagster/backfill"]
    assert backfill and isinstance(backfill[0]["limit"], int) and backfill[0]["limit"] >= 1
    assert isinstance(queue["maxConcurrentRuns"], int) and queue["maxConcurrentRuns"] >= 1


def test_helm_queue_is_valid_dagster_config(helm: dict[str, Any]) -> None:
    """Kubernetes: what the chart renders into the instance's run_coordinator is accepted by Dagster.

    The chart copies tagConcurrencyLimits verbatim and maxConcurrentRuns as max_concurrent_runs.
    """
    queue = _queue(helm)
    coordinator = _coordinator_from({
        "module": "dagster.core.run_coordinator", "class": "QueuedRunCoordinator",
        "config": {"max_concurrent_runs": queue["maxConcurrentRuns"],
                   "tag_concurrency_limits": queue["tagConcurrencyLimits"]},
    })
    config = coordinator.get_run_queue_config()
    assert config.max_concurrent_runs == queue["maxConcurrentRuns"]
    assert list(config.tag_concurrency_limits) == queue["tagConcurrencyLimits"]


def test_helm_user_deployment_serves_the_definitions(deployment: dict[str, Any]) -> None:
    """Kubernetes: the code server loads dagster_project.definitions from the project's image."""
    args = deployment.get("codeServerArgs") or deployment.get("dagsterApiGrpcArgs")
    assert args, "the user deployment starts no code server arguments"
    pairs = dict(zip(args, args[1:], strict=False))
    module = pairs.get("-m") or pairs.get("--module-name")
    assert module == "dagster_project.definitions"
    image = deployment["image"]
    assert str(image["repository"]).rsplit("/", 1)[-1] == "medallion-memory", (
        "the user deployment must run the project's image (the one the Dockerfile builds)")
    assert image.get("tag") and str(image["tag"]) != "latest", (
        "a unique image tag: run and step pods must run the code the code server planned with")
    assert isinstance(deployment["port"], int)


def test_helm_app_environment_comes_from_a_secret(helm: dict[str, Any], deployment: dict[str, Any]) -> None:
    """Kubernetes: the MEDALLION_* logins come from a Secret that reaches the runs; no admin URL anywhere."""
    secrets = [s["name"] for s in deployment.get("envSecrets") or []]
    assert secrets and all(secrets), "the user deployment reads no Secret"
    # the chart hands a deployment's config to its runs unless includeConfigInLaunchedRuns says otherwise
    assert deployment.get("includeConfigInLaunchedRuns", {"enabled": True})["enabled"] is True or set(secrets) <= {
        s["name"] for s in helm["runLauncher"]["config"]["k8sRunLauncher"].get("envSecrets") or []
    }, "the Secret would not reach the run pods"

    leaves = _walk(helm)
    assert not [p for p, v in leaves if isinstance(v, str) and "ADMIN_DATABASE_URL" in v.upper()], (
        "the administrator's URL is for `medallion db migrate` alone, never for the app")
    inline = {e["name"] for e in deployment.get("env") or [] if isinstance(e, dict) and "value" in e}
    assert not inline & set(APP_LOGINS), "database logins (with passwords) written inline instead of a Secret"
    urls = [p for p, v in leaves if isinstance(v, str) and v.strip().lower().startswith(("postgres://", "postgresql://"))]
    assert not urls, f"connection URLs (with passwords) in the values file: {urls}"


def test_helm_dagster_storage_is_an_external_postgres(helm: dict[str, Any]) -> None:
    """Kubernetes: Dagster's own storage is an external PostgreSQL whose password is in a Secret."""
    pg = helm["postgresql"]
    assert pg["enabled"] is False, "the chart would start its own PostgreSQL pod"
    assert pg["postgresqlHost"] and pg["postgresqlUsername"] and pg["postgresqlDatabase"]
    assert pg["postgresqlDatabase"] != "medallion", "Dagster's storage belongs in a database of its own"
    assert not pg.get("postgresqlPassword"), "the password belongs in the Secret, not in the values"
    assert helm["generatePostgresqlPasswordSecret"] is False
    assert helm["global"]["postgresqlSecretName"]


def test_helm_dagster_images_match_the_installed_dagster(helm: dict[str, Any]) -> None:
    """Kubernetes: the webserver and daemon run the Dagster version the project's image has."""
    import dagster

    for service in ("dagsterWebserver", "dagsterDaemon"):
        assert str(helm[service]["image"]["tag"]) == dagster.__version__, (
            f"{service} image {helm[service]['image']['tag']} but the project runs dagster {dagster.__version__}")


def test_helm_dagster_home_is_the_images(helm: dict[str, Any]) -> None:
    """Kubernetes: the chart mounts the instance where the project's image keeps DAGSTER_HOME."""
    assert f"DAGSTER_HOME={helm['global']['dagsterHome']}" in DOCKERFILE.read_text()


# ------------------------------------------------------------------------------------------------
# dagster.yaml (docker compose) and the Helm values: one queue


def test_compose_queue_is_the_helm_queue(helm: dict[str, Any], instance: dict[str, Any]) -> None:
    """One run queue: dagster.yaml (docker compose) and the Helm values set the same limits."""
    section = instance["run_coordinator"]
    assert section["class"] == "QueuedRunCoordinator"
    queue = _queue(helm)
    assert section["config"]["max_concurrent_runs"] == queue["maxConcurrentRuns"]
    assert section["config"]["tag_concurrency_limits"] == queue["tagConcurrencyLimits"]
    assert PARTITION_LIMIT in section["config"]["tag_concurrency_limits"]


def test_compose_queue_holds_back_a_second_run_of_a_namespace(instance: dict[str, Any]) -> None:
    """The limits as the daemon applies them (Dagster's own counter over dagster.yaml's coordinator).

    A run of partition team-a waits while another run of team-a is in progress; team-b does not;
    a third backfill run waits behind two. A run over a range of partitions has no partition tag,
    so the queue does not hold it: the per-namespace advisory lock does (docs/DEPLOY.md).
    """
    from dagster._utils.tags import TagConcurrencyLimitsCounter

    limits = _coordinator_from(instance["run_coordinator"]).get_run_queue_config().tag_concurrency_limits
    busy = TagConcurrencyLimitsCounter(list(limits), [_run(**{"dagster/partition": "team-a"})])
    assert busy.is_blocked(_run(**{"dagster/partition": "team-a"}))
    assert not busy.is_blocked(_run(**{"dagster/partition": "team-b"}))

    backfill_limit = next(limit["limit"] for limit in limits if limit["key"] == "dagster/backfill")
    running = [_run(**{"dagster/backfill": f"b{i}"}) for i in range(backfill_limit)]
    assert TagConcurrencyLimitsCounter(list(limits), running).is_blocked(_run(**{"dagster/backfill": "b9"}))
    assert not TagConcurrencyLimitsCounter(list(limits), running[:-1]).is_blocked(_run(**{"dagster/backfill": "b9"}))

    ranged = {"dagster/asset_partition_range_start": "team-a", "dagster/asset_partition_range_end": "team-c"}
    assert not busy.is_blocked(_run(**ranged))


# ------------------------------------------------------------------------------------------------
# docker compose


def test_compose_daemon_drains_the_queue_of_the_shared_instance() -> None:
    """docker compose: the daemon runs `dagster-daemon run` on the instance the webserver queues into."""
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    command = services["daemon"]["command"]
    args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    assert args[:2] == ["dagster-daemon", "run"]
    # one image (carrying dagster.yaml) and one DAGSTER_HOME for the webserver, the daemon and the code server
    assert len({services[name]["image"] for name in ("webserver", "daemon", "user_code")}) == 1
    homes = {str((services[name].get("environment") or {}).get("DAGSTER_HOME")) for name in ("webserver", "daemon")}
    assert len(homes) == 1 and homes != {"None"}
