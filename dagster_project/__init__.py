"""medallion-memory: an agent's memory built as a lakehouse (Bronze → Silver → Gold)."""

__version__ = "0.1.0"
