"""An MCP server (the ``mcp`` Python SDK's low-level ``Server``) whose tool
publishes sdsi's input schema and whose arguments sdsi validates: a call
with bad arguments gets a tool error listing every problem, in pydantic's
shape, so the client's model can correct all of them at once.

    pip install ./python "mcp>=2,<3"

Run it over stdio with ``mcp.server.stdio.stdio_server``; the test drives
it through the SDK's in-memory client (python/tests/test_integrations.py).
"""

from __future__ import annotations

import json

import mcp.types as types
from mcp.server import Server

import sdsi

TEMPLATE = sdsi.SchemaTemplate.from_dict({
    "schema_id": "book_flight",
    "scenario": "Books a flight for one or more passengers.",
    "keys": [
        {"key_name": "origin", "key_type": "string", "required": True,
         "semantic_description": "IATA code of the departure airport, e.g. PEK."},
        {"key_name": "destination", "key_type": "string", "required": True,
         "semantic_description": "IATA code of the arrival airport, e.g. SHA."},
        {"key_name": "passenger_count", "key_type": "integer", "required": False, "default_value": 1,
         "semantic_description": "How many people travel."},
        {"key_name": "other", "key_type": "string", "required": False,
         "semantic_description": "Requests the keys do not cover, in the user's words."},
    ],
})
SCHEMA = sdsi.CompiledSchema(TEMPLATE)
TOOL = types.Tool(
    name=TEMPLATE.schema_id,
    description=TEMPLATE.scenario,
    input_schema=SCHEMA.mcp_input_schema(),
)


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[TOOL])


def text(value) -> list:
    return [types.TextContent(type="text", text=json.dumps(value))]


async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name != TOOL.name:
        return types.CallToolResult(content=text({"error": f"no tool {params.name!r}"}), is_error=True)
    report = SCHEMA.validate_payload(params.arguments or {})
    try:
        report.raise_for_errors()
    except sdsi.ValidationError as error:
        # A tool error, not a protocol error: the model reads it and retries.
        details = [dict(e, loc=list(e["loc"])) for e in error.errors()]
        return types.CallToolResult(content=text({"errors": details}), is_error=True)
    booking = dict(report.normalized, status="confirmed")
    return types.CallToolResult(content=text(booking), structured_content=booking)


server = Server("sdsi-flights", on_list_tools=list_tools, on_call_tool=call_tool)
