"""Events the end-to-end CLI tests land through the inbox."""

from __future__ import annotations

import json


def hr_fact(i: int, subject: str, predicate: str, value: str, valid_from: str, authority: int) -> dict:
    """A kind=fact event of namespace cli-silver from the HR system."""
    return {"namespace": "cli-silver", "source": "hr", "source_event_id": f"hr-{i}", "kind": "fact",
            "provenance_root": f"hr://{i}", "authority": authority,
            "content": json.dumps({"subject": subject, "predicate": predicate, "value": value,
                                   "valid_from": valid_from})}
