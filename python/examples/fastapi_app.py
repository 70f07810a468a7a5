"""A FastAPI server whose request body sdsi validates: an invalid booking
gets FastAPI's own 422, its ``detail`` the ``errors()`` of
``sdsi.ValidationError`` (pydantic's shape, ``loc`` from the body), and a
valid one reaches the handler as the pydantic model the template came from.

    pip install ./python fastapi uvicorn
    uvicorn fastapi_app:app          # from python/examples

The body is handed to sdsi as bytes, so it is parsed once, by sdsi, and a
client's model that sent an unknown key learns its name and where it sits.
"""

from __future__ import annotations

import warnings
from typing import List, Literal, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field

import sdsi


class Booking(BaseModel):
    """A flight booking request."""

    origin: str = Field(description="IATA code of the departure airport, e.g. PEK.")
    destination: str = Field(description="IATA code of the arrival airport, e.g. SHA.")
    departure_date: str = Field(description="Day of departure, YYYY-MM-DD.")
    cabin_class: Literal["economy", "business", "first"] = Field("economy", description="Cabin class.")
    passenger_count: int = Field(1, description="How many people travel.")
    other: Optional[List[str]] = Field(None, description="Requests the keys do not cover.")


# Compiled once, at import: the template the server publishes to clients.
# The two narrowings from_pydantic reports are known and accepted here: the
# template lists `cabin_class`'s values in its description only (pydantic
# still refuses others), and `other` takes a string or strings.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", sdsi.ConversionWarning)
    TEMPLATE = sdsi.SchemaTemplate.from_pydantic(Booking, schema_id="flight_booking_v1", scenario="flight_booking")
SCHEMA = sdsi.CompiledSchema(TEMPLATE)

app = FastAPI()


@app.get("/schema")
def schema() -> dict:
    """The template, for a client to negotiate against."""
    return TEMPLATE.to_dict()


@app.post("/bookings")
async def book(request: Request) -> dict:
    report = SCHEMA.validate(await request.body())
    try:
        report.raise_for_errors()
    except sdsi.ValidationError as error:
        # FastAPI's handler answers 422 with {"detail": errors}; its own
        # locations start at "body", so these do too.
        raise RequestValidationError([dict(e, loc=("body", *e["loc"])) for e in error.errors()]) from None
    booking = Booking.model_validate(report.normalized)
    return {"booked": booking.model_dump(), "warnings": [w.message for w in report.warnings]}
