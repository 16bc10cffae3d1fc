"""The shape of the ``openai`` distiller's output, without a server (S1, S3; open predicates).

What a model answers is turned into :class:`FactCandidate` by pure functions: typed values, the slot
through the open vocabulary, the defaults of a slightly wrong fact. The request/response round trip is
tested against the loopback server in tests/integration/test_openai_provider.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import jsonschema
import openai
import pytest

from medallion.distill.llm import is_format_refusal, load_card, response_format, unwrap_json
from medallion.distill.providers.openai_provider import (
    DISTILL_ACCEPT,
    UnusableFact,
    fact_candidate,
    iso_date,
    slot_cardinality,
    typed_value,
)
from medallion.distill.types import EventInput, FactCandidate
from tests.support.fake_openai import LLAMA_CPP_REFUSAL, distill_fact

T0 = datetime(2026, 3, 1, 10, tzinfo=UTC)
EVENT = EventInput(1, "ns", "slack", "m1", "transcript", "user:nate", "...", T0, T0, 1, "slack://m1")


def _objects(schema: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every object schema inside ``schema`` (properties, items, anyOf branches), with its path."""
    if not isinstance(schema, dict):
        return []
    found = [(where or "(root)", schema)] if schema.get("type") == "object" else []
    for name, sub in (schema.get("properties") or {}).items():
        found += _objects(sub, f"{where}/{name}")
    found += _objects(schema.get("items"), f"{where}/items")
    for i, sub in enumerate(schema.get("anyOf") or []):
        found += _objects(sub, f"{where}/anyOf{i}")
    return found


@pytest.mark.parametrize("card", ["distill", "judge"])
def test_card_schema_is_strict_mode_compatible(card: str) -> None:
    """4.1: OpenAI strict structured output needs every object closed and every property required (an
    optional field is nullable instead); the schema itself must be valid JSON Schema."""
    schema = load_card(card)["output_schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    for where, obj in _objects(schema):
        assert obj.get("additionalProperties") is False, where
        assert sorted(obj.get("required", [])) == sorted(obj.get("properties", {})), where


def test_distill_schema_fields() -> None:
    """S1: a fact carries subject, predicate, relation, cardinality, a typed value, statement, valid_from,
    confidence; the optional ones are nullable."""
    item = load_card("distill")["output_schema"]["properties"]["facts"]["items"]
    props = item["properties"]
    assert set(props) == {"subject", "predicate", "relation", "cardinality", "value_type", "value", "unit",
                          "statement", "valid_from", "confidence"}
    assert props["value_type"]["enum"] == ["entity", "date", "number", "text"]
    assert props["cardinality"]["enum"] == ["one", "many", None]
    for nullable in ("relation", "cardinality", "unit"):
        assert "null" in props[nullable]["type"]
    validator = jsonschema.Draft202012Validator(load_card("distill")["output_schema"])
    good = {"facts": [distill_fact("the trail", "length", 12.5, "The trail is 12.5 km long.", value_type="number",
                                   unit="km", cardinality="one", relation="is long")]}
    assert not list(validator.iter_errors(good))


@pytest.mark.parametrize(
    ("answer", "accepted"),
    [
        ({"facts": []}, True),
        ({"facts": [distill_fact("A", "states", "x", "A is x.")]}, True),
        ({"facts": [{"subject": "A"}, distill_fact("A", "states", 3, "A is 3.")]}, True),  # partial: one usable
        ({"facts": [{"subject": "A"}, "B"]}, False),  # nothing usable
        ({"facts": [distill_fact("A", "states", " ", "A is x.")]}, False),  # a blank value
        ({"facts": None}, False),
        ({}, False),
    ],
)
def test_accept_schema(answer: dict[str, Any], accepted: bool) -> None:
    """S1 / R4: an answer is accepted with an empty list or at least one usable fact; else it is repaired."""
    assert jsonschema.Draft202012Validator(DISTILL_ACCEPT).is_valid(answer) is accepted


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2023-05-07", "2023-05-07"), ("2023-05", "2023-05"), ("2023", "2023"), ("--02-29", "--02-29"),
     ("2023-05-07T10:00:00", "2023-05-07T10:00:00"), ("2023-02-30", None), ("--13-01", None), ("0000", None),
     ("May 2023", None), ("20230507", None), ("yesterday", None)],
)
def test_iso_date(text: str, expected: str | None) -> None:
    """S1: a date value is an ISO date (partial forms allowed), checked against the calendar."""
    assert iso_date(text) == expected


@pytest.mark.parametrize(
    ("value_type", "value", "unit", "expected"),
    [
        ("number", 12.5, "km", ("number", {"number": 12.5, "unit": "km"})),
        ("number", 3.0, None, ("number", {"number": 3, "unit": None})),
        ("number", "1,200", "people", ("number", {"number": 1200, "unit": "people"})),
        ("number", "42 km", None, ("number", {"number": 42, "unit": "km"})),
        ("number", "about three", "km", ("text", "about three km")),
        ("number", "1,5", None, ("text", "1,5")),
        ("date", "2021-05-03", None, ("date", "2021-05-03")),
        ("date", "last May", None, ("text", "last May")),
        ("entity", "  Mara   Quillon ", None, ("entity", "Mara Quillon")),
        ("text", 7, None, ("text", "7")),
        (None, 7, "kg", ("number", {"number": 7, "unit": "kg"})),
        ("colour", "teal", None, ("text", "teal")),
    ],
)
def test_typed_value(value_type: Any, value: Any, unit: Any, expected: tuple[str, Any]) -> None:
    """S1: values are typed; a claim the value does not bear out falls back to text, not to a lost fact."""
    assert typed_value(value_type, value, unit) == expected


def test_legacy_fact_gets_defaults() -> None:
    """S1: a fact with only the essential fields (an older or sloppy answer) gets every other default."""
    c = fact_candidate({"subject": "Nate", "value": "a dog", "statement": "Nate adopted a dog."}, EVENT)
    assert c == FactCandidate("Nate", "states", "a dog", "Nate adopted a dog.", T0, 0.5, None, None, "text",
                              None, None)


@pytest.mark.parametrize(
    ("fact", "reason"),
    [
        ({"subject": "Nate", "statement": "Nate."}, "missing or empty value"),
        ({"subject": " ", "value": "x", "statement": "Nate."}, "missing or empty subject"),
        ({"subject": "Nate", "value": True, "statement": "Nate."}, "missing or empty value"),
        ({"subject": "Nate", "value": "x", "statement": "Nate:  "}, "missing or empty statement"),
        (["Nate"], "a list, not a JSON object"),
    ],
)
def test_unusable_fact(fact: Any, reason: str) -> None:
    """S1: only the essential fields make a fact unusable; the reason says which."""
    with pytest.raises(UnusableFact, match=reason):
        fact_candidate(fact, EVENT)


def test_inverse_alias_swaps_into_the_curated_direction() -> None:
    """S1: "Bob employs Nate" (inverse alias of works_at) is stored as (Nate, works_at, Bob)."""
    c = fact_candidate(distill_fact("Bob", "employs", "Nate", "Bob employs Nate.", value_type="text",
                                    relation="employs", cardinality="many"), EVENT)
    assert (c.subject, c.predicate, c.value, c.value_type, c.object_entity, c.cardinality, c.relation) == (
        "Nate", "works_at", "Bob", "entity", "Bob", None, "employs")


def test_slot_cardinality_sources() -> None:
    """S3: curated → the seed (whatever the hint), learned → the hint, else the learned-predicate rule."""
    curated = FactCandidate("A", "lives_in", "X", "A lives in X.", T0, 0.9, cardinality="many")
    assert slot_cardinality(curated) == ("one", "curated")
    learned = FactCandidate("Tidewater", "author", "F", "s", T0, 0.9, cardinality="one")
    assert slot_cardinality(learned) == ("one", "distiller hint")
    unhinted = FactCandidate("Tidewater", "went_to", "Rome", "s", T0, 0.9)
    assert slot_cardinality(unhinted)[1] == "rule"


def _status_error(status: int, message: str) -> openai.APIStatusError:
    """The error the ``openai`` client raises for an HTTP error answer with this status and message."""
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    body = {"error": {"message": message, "type": "server_error" if status >= 500 else "invalid_request_error"}}
    response = httpx.Response(status, json=body, request=request)
    kinds = {400: openai.BadRequestError, 404: openai.NotFoundError, 422: openai.UnprocessableEntityError,
             429: openai.RateLimitError}
    kind = kinds.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return kind(f"Error code: {status} - {body}", response=response, body=body)


@pytest.mark.parametrize(
    ("status", "message", "refusal"),
    [
        # llama-cpp-python 0.3.36: a pydantic literal error on response_format.type, answered as a 500
        (*LLAMA_CPP_REFUSAL, True),
        (400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", True),
        (422, "json_schema is not a valid format", True),
        (400, "this server does not support json_object", True),
        (400, "Unsupported value: 'strict'", True),
        (501, "structured output: response_format not implemented", True),
        # transient or unrelated: never a refusal, whatever the body says
        (500, "The server had an error while processing your request", False),
        (503, "overloaded while applying response_format", False),
        (502, "bad gateway (json_schema)", False),
        (429, "Rate limit reached for json_schema requests", False),
        (404, "no route /v1/wrong/chat/completions", False),
        (400, "messages must not be empty", False),
        (500, "unsupported operation", False),
    ],
)
def test_format_refusal(status: int, message: str, refusal: bool) -> None:
    """Only a refusal of the structured-output parameter moves an endpoint down a mode."""
    assert is_format_refusal(_status_error(status, message)) is refusal


def test_timeouts_and_connection_errors_are_not_refusals() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    assert not is_format_refusal(openai.APITimeoutError(request=request))
    assert not is_format_refusal(openai.APIConnectionError(message="response_format refused", request=request))


def test_response_format_per_mode() -> None:
    """json_schema strict with its name; json_object with the schema (servers that take it constrain by
    it); prompt-only sends none."""
    schema = {"type": "object"}
    assert response_format("json_schema", schema, "judge") == {
        "type": "json_schema", "json_schema": {"name": "judge", "schema": schema, "strict": True}}
    assert response_format("json_object", schema, "judge") == {"type": "json_object", "schema": schema}
    assert response_format("prompt", schema, "judge") is None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"facts": []}', '{"facts": []}'),
        ('```json\n{"facts": []}\n```', '{"facts": []}'),
        ('```\n{"a": {"b": 1}}\n```', '{"a": {"b": 1}}'),
        ('Sure. {"facts": []} Anything else?', '{"facts": []}'),
        ("no braces at all", "no braces at all"),
        ("} backwards {", "} backwards {"),
    ],
)
def test_unwrap_json(content: str, expected: str) -> None:
    """An answer asked for JSON only in the prompt loses a code fence or words around its object."""
    assert unwrap_json(content) == expected
