"""One typed settings object for every entry point (CLI, Dagster, tests, MCP).

Values come from environment variables (the CLI's JSON shape); nothing else reads ``os.environ``
for configuration, so a test can build a :class:`Settings` explicitly and know it is complete.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# Relative defaults are anchored where the process started, not where it happens to be: dbt, run
# in-process by dagster-dbt (row counts), changes the working directory to the dbt project, and a
# Settings built after that must still find the same home (and the same embedded server).
LAUNCH_DIR = Path.cwd()


class Settings(BaseSettings):
    """Configuration of one medallion-memory deployment."""

    model_config = SettingsConfigDict(env_prefix="MEDALLION_", extra="ignore", populate_by_name=True)

    home: Path = Field(
        default_factory=lambda: LAUNCH_DIR / ".medallion",
        description="Local state: the embedded server's data, caches, the compiled wiki.",
    )
    database_url: str | None = Field(
        default=None, repr=False,
        description="An external PostgreSQL URL; unset means the embedded server under home/pgdata.",
    )
    engine_database_url: str | None = Field(
        default=None, repr=False, description="Login of the engine role; default: the admin URL with the user swapped."
    )
    tool_database_url: str | None = Field(
        default=None, repr=False, description="Login of the tool role; default: the admin URL with the user swapped."
    )
    admin_database_url: str | None = Field(
        default=None, repr=False,
        description="The database administrator's URL, read by `medallion db migrate` alone: it applies the "
        "migrations and sets up the app's logins; the app itself never uses it.",
    )
    llm_provider: Literal["heuristic", "openai"] = "heuristic"
    llm_model: str = "gpt-4o-mini"
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "openai_base_url")
    )
    openai_api_key: str | None = Field(
        default=None, repr=False, validation_alias=AliasChoices("OPENAI_API_KEY", "openai_api_key")
    )
    embedding_model: str = "all-MiniLM-L6-v2"
    conflict_threshold: float = Field(
        default=0.90, ge=0.0, le=1.0,
        description="Cosine above which a fact is a neighbour of a candidate (and a paraphrase for the heuristic "
        "judge); tuned in STANDARDS.md.",
    )
    inbox: Path = Field(default_factory=lambda: LAUNCH_DIR / "inbox")
    wiki_dir: Path | None = Field(
        default=None, description="Where the compiled wiki is written (default: <home>/wiki)."
    )
    audit_sample: int = Field(default=20, ge=0, description="Slots the drift audit samples from Hindsight.")
    data_dictionary_path: Path = Field(
        default_factory=lambda: Path(__file__).resolve().parents[1] / "DATA_DICTIONARY.md",
        description="Where the data dictionary asset writes DATA_DICTIONARY.md (default: the repository root).",
    )
    hindsight_url: str | None = Field(
        default=None, validation_alias=AliasChoices("HINDSIGHT_URL", "hindsight_url")
    )
    token: str | None = Field(default=None, repr=False)
    distill_budget_seconds: float = Field(
        default=2.0, ge=0.0,
        description="CPU seconds one event's distillation may use; an event over it is parked (the next run "
        "retries it) and the run goes on. 0 turns the budget off.",
    )
    max_content_bytes: int = Field(
        default=1_048_576, gt=0, description="Events whose content exceeds this many UTF-8 bytes are quarantined."
    )

    # The MCP server's sessions: one per distinct caller, each holding two or three database connections.
    mcp_max_sessions: int = Field(
        default=16, ge=1, le=1000,
        description="Callers (distinct tokens) the MCP server keeps a session open for at once; a new caller "
        "takes the place of the one idle longest, and is refused only while every session is in a call.",
    )
    mcp_session_idle_seconds: float = Field(
        default=300.0, gt=0,
        description="An MCP session unused this long is closed and its database connections freed.",
    )

    @property
    def pgdata(self) -> Path:
        """Data directory of the embedded server."""
        return self.home / "pgdata"

    @property
    def wiki_root(self) -> Path:
        """The compiled wiki's folder."""
        return self.wiki_dir or self.home / "wiki"

    @property
    def uses_embedded(self) -> bool:
        """True when no external database is configured."""
        return not self.database_url


def get_settings(**overrides: object) -> Settings:
    """Read the settings from the environment, with explicit overrides winning."""
    return Settings(**overrides)  # type: ignore[arg-type]
