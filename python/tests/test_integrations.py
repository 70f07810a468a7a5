"""The examples of python/examples, run the way their frameworks test
them: the FastAPI app through FastAPI's TestClient, the MCP server through
the MCP SDK's in-memory client. Each is skipped when its framework is not
installed (scripts/test-python.sh installs both)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(autouse=True)
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def test_fastapi_answers_422_with_sdsis_errors():
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    import fastapi_app

    client = TestClient(fastapi_app.app)
    assert client.get("/schema").json()["schema_id"] == "flight_booking_v1"
    ok = client.post("/bookings", content=json.dumps({"schema_id": "flight_booking_v1", "payload": {
        "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04", "other": ["window seat"]}}))
    assert ok.status_code == 200, ok.text
    assert ok.json()["booked"] == {"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04",
                                   "cabin_class": "economy", "passenger_count": 1, "other": ["window seat"]}
    bad = client.post("/bookings", content=json.dumps({"schema_id": "flight_booking_v1", "payload": {
        "origin": "PEK", "departure_date": "2026-05-04", "passenger_count": "two", "seat": "12A"}}))
    assert bad.status_code == 422
    detail = bad.json()["detail"]
    assert [(d["type"], d["loc"]) for d in detail] == [
        ("missing_required_key", ["body", "payload", "destination"]),
        ("type_mismatch", ["body", "payload", "passenger_count"]),
        ("unknown_key", ["body", "payload", "seat"]),
    ]
    assert detail[1]["input"] == "two" and detail[2]["input"] == "12A"
    assert client.post("/bookings", content=b"{not json").json()["detail"][0]["type"] == "invalid_json"


def test_an_mcp_server_publishes_sdsis_schema_and_validates_arguments():
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    import mcp_server

    async def session():
        async with Client(mcp_server.server) as client:
            [tool] = (await client.list_tools()).tools
            ok = await client.call_tool("book_flight", {"origin": "PEK", "destination": "SHA"})
            bad = await client.call_tool("book_flight", {"origin": 7, "seat": "12A"})
            return tool, ok, bad

    tool, ok, bad = anyio.run(session)
    assert tool.input_schema == mcp_server.SCHEMA.mcp_input_schema()
    assert not ok.is_error
    assert ok.structured_content == {"origin": "PEK", "destination": "SHA", "passenger_count": 1,
                                     "status": "confirmed"}
    assert bad.is_error
    errors = json.loads(bad.content[0].text)["errors"]
    assert [(e["type"], e["loc"]) for e in errors] == [
        ("missing_required_key", ["destination"]),
        ("type_mismatch", ["origin"]),
        ("unknown_key", ["seat"]),
    ]
