#!/usr/bin/env python3
"""Writes tests/cases/envelope.json and tests/cases/envelope_structured.json.

    python3 tests/cases/gen_envelope_cases.py

Every envelope code and warning, each as a one-field change of the Universal
Schema document's first example message (its two example messages are cases
of their own), plus envelopes around structured payloads validated against
the draft's flight template (Figure 2).
"""

import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# The envelope document's two example messages, as published (§4).
BASIC_QUERY = {
    "id": "550e8400-e29b-41d4-a716-446655440000",
    "protocol_version": "0.1",
    "timestamp": "2025-11-21T20:45:00Z",
    "agent_id": "diana",
    "target_agent": "hairvault",
    "message_type": "inventory_query",
    "capabilities": ["inventory.read"],
    "payload": {"product": "olaplex"},
}
RESPONSE = {
    "id": "fc9c0b81-a0af-4f20-96cf-d1e3a00bb1df",
    "protocol_version": "0.1",
    "timestamp": "2025-11-21T20:45:01Z",
    "agent_id": "hairvault",
    "target_agent": "diana",
    "message_type": "inventory_response",
    "capabilities": ["inventory.read"],
    "payload": {"product": "olaplex", "stock": 14, "low_stock": False},
}


def with_(base, **changes):
    out = copy.deepcopy(base)
    for k, v in changes.items():
        out[k] = v
    return out


def without(base, *fields):
    out = copy.deepcopy(base)
    for f in fields:
        del out[f]
    return out


def case(description, data, errors=(), warnings=()):
    return {
        "description": description,
        "data": data,
        "valid": not errors,
        "errors": [list(e) for e in errors],
        "warnings": [list(w) for w in warnings],
    }


Q = BASIC_QUERY
FIELDS = list(Q)

envelope = [
    {
        "description": "the envelope document's example messages",
        "tests": [
            case("Basic Query (§4)", Q),
            case("Response Example (§4)", RESPONSE),
        ],
    },
    {
        "description": "valid variations",
        "tests": [
            case("empty capabilities (acknowledgments, errors)", with_(Q, capabilities=[])),
            case("empty payload", with_(Q, payload={})),
            case("broadcast target", with_(Q, target_agent="broadcast")),
            case("higher minor of a known major", with_(Q, protocol_version="0.2")),
            case("patch component", with_(Q, protocol_version="0.1.3")),
            case("uppercase uuid", with_(Q, id="550E8400-E29B-41D4-A716-446655440000")),
            case("fractional seconds", with_(Q, timestamp="2025-11-21T20:45:00.250Z")),
            case("+00:00 is utc", with_(Q, timestamp="2025-11-21T20:45:00+00:00")),
            case("-00:00 is utc", with_(Q, timestamp="2025-11-21T20:45:00-00:00")),
            case("lowercase t and z", with_(Q, timestamp="2025-11-21t20:45:00z")),
            case("extra top-level members are kept", with_(Q, trace_id="abc", retry=2)),
            case("objects nested 2 levels", with_(Q, payload={"a": {"b": {"c": 1}}})),
            case("arrays add no level", with_(Q, payload={"a": [[{"b": [{"c": 1}]}]]})),
            case("the protocol's own message type", with_(Q, message_type="structured_payload")),
        ],
    },
    {
        "description": "missing_field: one per absent field",
        "tests": [case(f"no {f}", without(Q, f), errors=[("missing_field", f"/{f}")]) for f in FIELDS]
        + [
            case(
                "empty object",
                {},
                errors=sorted([("missing_field", f"/{f}") for f in FIELDS], key=lambda e: e[1]),
            )
        ],
    },
    {
        "description": "wrong_type",
        "tests": [
            case("id is a number", with_(Q, id=1), errors=[("wrong_type", "/id")]),
            case("protocol_version is a number", with_(Q, protocol_version=0.1), errors=[("wrong_type", "/protocol_version")]),
            case("timestamp is a number", with_(Q, timestamp=1763757900), errors=[("wrong_type", "/timestamp")]),
            case("agent_id is null", with_(Q, agent_id=None), errors=[("wrong_type", "/agent_id")]),
            case("target_agent is an object", with_(Q, target_agent={"name": "x"}), errors=[("wrong_type", "/target_agent")]),
            case("message_type is an array", with_(Q, message_type=["a"]), errors=[("wrong_type", "/message_type")]),
            case("capabilities is a string", with_(Q, capabilities="inventory.read"), errors=[("wrong_type", "/capabilities")]),
            case("capabilities is null", with_(Q, capabilities=None), errors=[("wrong_type", "/capabilities")]),
        ],
    },
    {
        "description": "not_an_object: the envelope itself",
        "tests": [
            case("an array", [Q], errors=[("not_an_object", "")]),
            case("a string", "envelope", errors=[("not_an_object", "")]),
            case("null", None, errors=[("not_an_object", "")]),
        ],
    },
    {
        "description": "invalid_uuid",
        "tests": [
            case("not a uuid", with_(Q, id="message-1"), errors=[("invalid_uuid", "/id")]),
            case("version 1", with_(Q, id="550e8400-e29b-11d4-a716-446655440000"), errors=[("invalid_uuid", "/id")]),
            case("version 7", with_(Q, id="0190a6d8-5b7e-7c3a-8f1e-2b3c4d5e6f70"), errors=[("invalid_uuid", "/id")]),
            case("nil uuid", with_(Q, id="00000000-0000-0000-0000-000000000000"), errors=[("invalid_uuid", "/id")]),
            case("microsoft variant", with_(Q, id="550e8400-e29b-41d4-c716-446655440000"), errors=[("invalid_uuid", "/id")]),
            case("no hyphens", with_(Q, id="550e8400e29b41d4a716446655440000"), errors=[("invalid_uuid", "/id")]),
            case("braced", with_(Q, id="{550e8400-e29b-41d4-a716-446655440000}"), errors=[("invalid_uuid", "/id")]),
            case("urn form", with_(Q, id="urn:uuid:550e8400-e29b-41d4-a716-446655440000"), errors=[("invalid_uuid", "/id")]),
            case("empty", with_(Q, id=""), errors=[("invalid_uuid", "/id")]),
        ],
    },
    {
        "description": "invalid_timestamp",
        "tests": [
            case("not a date", with_(Q, timestamp="yesterday"), errors=[("invalid_timestamp", "/timestamp")]),
            case("no offset (local time)", with_(Q, timestamp="2025-11-21T20:45:00"), errors=[("invalid_timestamp", "/timestamp")]),
            case("date only", with_(Q, timestamp="2025-11-21"), errors=[("invalid_timestamp", "/timestamp")]),
            case("month 13", with_(Q, timestamp="2025-13-21T20:45:00Z"), errors=[("invalid_timestamp", "/timestamp")]),
            case("basic iso 8601 format", with_(Q, timestamp="20251121T204500Z"), errors=[("invalid_timestamp", "/timestamp")]),
            case("not representable in utc", with_(Q, timestamp="0000-01-01T00:00:00+01:00"), errors=[("invalid_timestamp", "/timestamp")]),
        ],
    },
    {
        "description": "payload_not_object",
        "tests": [
            case("an array", with_(Q, payload=[{"product": "olaplex"}]), errors=[("payload_not_object", "/payload")]),
            case("a string", with_(Q, payload="olaplex"), errors=[("payload_not_object", "/payload")]),
            case("null", with_(Q, payload=None), errors=[("payload_not_object", "/payload")]),
        ],
    },
    {
        "description": "capabilities_not_strings: one per element",
        "tests": [
            case("a number", with_(Q, capabilities=["inventory.read", 2]), errors=[("capabilities_not_strings", "/capabilities/1")]),
            case(
                "several",
                with_(Q, capabilities=[None, "a", {"x": 1}, ["b"]]),
                errors=[
                    ("capabilities_not_strings", "/capabilities/0"),
                    ("capabilities_not_strings", "/capabilities/2"),
                    ("capabilities_not_strings", "/capabilities/3"),
                ],
            ),
        ],
    },
    {
        "description": "unsupported_version",
        "tests": [
            case("major 1", with_(Q, protocol_version="1.0"), errors=[("unsupported_version", "/protocol_version")]),
            case("major 2", with_(Q, protocol_version="2.3"), errors=[("unsupported_version", "/protocol_version")]),
            case("no minor", with_(Q, protocol_version="0"), errors=[("unsupported_version", "/protocol_version")]),
            case("a v prefix", with_(Q, protocol_version="v0.1"), errors=[("unsupported_version", "/protocol_version")]),
            case("leading zero", with_(Q, protocol_version="0.01"), errors=[("unsupported_version", "/protocol_version")]),
            case("empty", with_(Q, protocol_version=""), errors=[("unsupported_version", "/protocol_version")]),
        ],
    },
    {
        "description": "warnings: the document's recommendations",
        "tests": [
            case("non-utc timestamp", with_(Q, timestamp="2025-11-22T04:45:00+08:00"), warnings=[("non_utc_timestamp", "/timestamp")]),
            case("negative offset", with_(Q, timestamp="2025-11-21T15:45:00-05:00"), warnings=[("non_utc_timestamp", "/timestamp")]),
            case("camelCase payload key", with_(Q, payload={"productName": "olaplex"}), warnings=[("payload_key_not_snake_case", "/payload/productName")]),
            case(
                "keys at every level",
                with_(Q, payload={"items": [{"Sku": 1, "ok": {"Bad-Key": 2}}]}),
                warnings=[
                    ("payload_key_not_snake_case", "/payload/items/0/Sku"),
                    ("payload_key_not_snake_case", "/payload/items/0/ok/Bad-Key"),
                ],
            ),
            case("key with a slash is escaped", with_(Q, payload={"a/b": 1}), warnings=[("payload_key_not_snake_case", "/payload/a~1b")]),
            case("objects nested 3 levels", with_(Q, payload={"a": {"b": {"c": {"d": 1}}}}), warnings=[("payload_too_deep", "/payload/a/b/c")]),
            case(
                "only the outermost too-deep object",
                with_(Q, payload={"a": {"b": {"c": {"d": {"e": {}}}}}, "x": [{"y": {"z": {}}}]}),
                warnings=[("payload_too_deep", "/payload/a/b/c"), ("payload_too_deep", "/payload/x/0/y/z")],
            ),
            case(
                "all three at once",
                with_(Q, timestamp="2025-11-21T21:45:00+01:00", payload={"A": {"b": {"c": {}}}}),
                warnings=[
                    ("payload_key_not_snake_case", "/payload/A"),
                    ("payload_too_deep", "/payload/A/b/c"),
                    ("non_utc_timestamp", "/timestamp"),
                ],
            ),
        ],
    },
    {
        "description": "every problem at once",
        "tests": [
            case(
                "errors and warnings together",
                {
                    "id": "not-a-uuid",
                    "protocol_version": "3.0",
                    "timestamp": "2025-11-22T04:45:00+08:00",
                    "agent_id": 7,
                    "message_type": "x",
                    "capabilities": ["a", 1],
                    "payload": {"Bad": 1},
                },
                errors=[
                    ("wrong_type", "/agent_id"),
                    ("capabilities_not_strings", "/capabilities/1"),
                    ("invalid_uuid", "/id"),
                    ("unsupported_version", "/protocol_version"),
                    ("missing_field", "/target_agent"),
                ],
                warnings=[("payload_key_not_snake_case", "/payload/Bad"), ("non_utc_timestamp", "/timestamp")],
            ),
        ],
    },
]

FLIGHT = json.load(open(os.path.join(HERE, "..", "figures", "fig02_flight_template.json")))
FIG4 = json.load(open(os.path.join(HERE, "..", "figures", "fig04_flight_payload.json")))
E = with_(Q, agent_id="travel_assistant", target_agent="airline_agent", message_type="structured_payload", capabilities=["flight.book"], payload=FIG4)

structured = [
    {
        "description": "envelopes around structured payloads (flight template, Figure 2)",
        "schema": FLIGHT,
        "tests": [
            case("Figure 4 in an envelope", E),
            case(
                "payload problems are reported from the envelope's root",
                with_(E, payload={"schema_id": "flight_booking_v1", "payload": {"origin": "PEK", "passenger_count": "two", "seat": "12A"}}),
                errors=[
                    ("missing_required_key", "/payload/payload/departure_date"),
                    ("missing_required_key", "/payload/payload/destination"),
                    ("type_mismatch", "/payload/payload/passenger_count"),
                    ("unknown_key", "/payload/payload/seat"),
                ],
            ),
            case(
                "both layers at once",
                with_(E, id="nope", payload={"schema_id": "flight_booking_v2", "payload": FIG4["payload"]}),
                errors=[("invalid_uuid", "/id"), ("schema_id_mismatch", "/payload/schema_id")],
            ),
            case("no schema_id in the payload", with_(E, payload={"payload": FIG4["payload"]}), errors=[("missing_schema_id", "/payload/schema_id")]),
            case("no structured payload inside", with_(E, payload={"schema_id": "flight_booking_v1"}), errors=[("missing_payload", "/payload/payload")]),
            case("payload not an object: only the envelope layer", with_(E, payload=[1]), errors=[("payload_not_object", "/payload")]),
            case(
                "envelope warnings on a valid exchange",
                with_(E, timestamp="2026-05-04T09:00:00+08:00"),
                warnings=[("non_utc_timestamp", "/timestamp")],
            ),
        ],
    }
]

for name, data in [("envelope.json", envelope), ("envelope_structured.json", structured)]:
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")
