"""The Dagster resource that hands the engine its settings and connections."""


import psycopg
from dagster import ConfigurableResource

from medallion.db.connection import Role, connect
from medallion.settings import Settings, get_settings


class MedallionResource(ConfigurableResource):
    """Settings from the environment, with optional overrides (tests point it at their database)."""

    database_url: str | None = None
    home: str | None = None
    inbox: str | None = None

    def settings(self) -> Settings:
        overrides = {k: v for k, v in {"database_url": self.database_url, "home": self.home,
                                       "inbox": self.inbox}.items() if v is not None}
        return get_settings(**overrides)

    def connect(self, role: Role = "engine") -> psycopg.Connection:
        """An autocommit connection acting as ``role``; the engine functions manage transactions."""
        return connect(self.settings(), role, autocommit=True)
