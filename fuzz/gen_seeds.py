#!/usr/bin/env python3
"""Regenerates the committed seed files under fuzz/seeds/.

    python3 fuzz/gen_seeds.py

Messages and templates come from the draft's figures
(/work/shared/spec/draft-zhou-structured-data-schema-interaction-00.md, copied
into fuzz/templates/ where a target needs them) plus hand-written tricky cases.
Text is written byte for byte: escapes such as "or\\u0069gin" stay escaped.

payload_against_flight seeds are plain message bytes.
template_and_payload seeds are [len_lo, len_hi, opts] + template + message
(see fuzz_targets/template_and_payload.rs).
"""

import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "seeds")

FLIGHT_TEMPLATE = open(os.path.join(HERE, "templates", "flight_booking_v1.json"), "rb").read()

# Appendix A.1 response (no default_value members, "other" declared).
A1_TEMPLATE = b"""{
  "schema_id": "flight_booking_v1",
  "scenario": "flight_booking",
  "keys": [
    {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "Departure city or airport code. Example: 'from Beijing' -> 'PEK'."},
    {"key_name": "destination", "key_type": "string", "required": true, "semantic_description": "Arrival city or airport code. Example: 'to Shanghai' -> 'SHA'."},
    {"key_name": "departure_date", "key_type": "string", "required": true, "semantic_description": "Departure date in ISO 8601 format (YYYY-MM-DD)."},
    {"key_name": "cabin_class", "key_type": "string", "required": false, "default_value": "economy", "semantic_description": "Cabin class. Acceptable values: economy, premium_economy, business, first."},
    {"key_name": "passenger_count", "key_type": "integer", "required": false, "default_value": 1, "semantic_description": "Number of passengers. Range: 1-9."},
    {"key_name": "other", "key_type": "string", "required": false, "semantic_description": "Natural-language descriptions that cannot be mapped to existing keys."}
  ]
}"""

# Appendix A.3.
PHOTO_TEMPLATE = b"""{
  "schema_id": "photo_retouch_v2",
  "scenario": "photo_retouch",
  "keys": [
    {"key_name": "skin_smoothing", "key_type": "integer", "required": false, "default_value": 0, "semantic_description": "Skin smoothing intensity. Range: 0-10."},
    {"key_name": "teeth_whitening", "key_type": "boolean", "required": false, "default_value": false, "semantic_description": "Whether teeth whitening is enabled."},
    {"key_name": "background_blur", "key_type": "boolean", "required": false, "default_value": false, "semantic_description": "Whether background blur is enabled."},
    {"key_name": "filter_style", "key_type": "string", "required": false, "default_value": "none", "semantic_description": "Filter style: none, vintage, cinematic, warm, cool."},
    {"key_name": "eye_enlargement", "key_type": "boolean", "required": false, "default_value": false, "semantic_description": "Whether eye enlargement is enabled."},
    {"key_name": "other", "key_type": "string", "required": false, "semantic_description": "Photo-editing requirements that cannot be mapped to existing keys."}
  ]
}"""

# Figure 3: a single key definition (not a template).
FIGURE_3 = b"""{
  "key_name": "cabin_class",
  "key_type": "string",
  "required": false,
  "default_value": "economy",
  "semantic_description": "Cabin class preference. Acceptable values: economy, premium_economy, business, first."
}"""

FLIGHT_PAYLOAD = b"""{
  "schema_id": "flight_booking_v1",
  "payload": {
    "origin": "PEK",
    "destination": "SHA",
    "departure_date": "2026-05-04",
    "cabin_class": "business",
    "passenger_count": 1,
    "other": "window seat"
  }
}"""

PHOTO_PAYLOAD = b"""{
  "schema_id": "photo_retouch_v2",
  "payload": {
    "skin_smoothing": 7,
    "teeth_whitening": true,
    "background_blur": true,
    "filter_style": "vintage",
    "eye_enlargement": false,
    "other": "increase eye size proportionally"
  }
}"""

REQ = b'"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04"'


def msg(payload_members: bytes, schema_id: bytes = b'"flight_booking_v1"') -> bytes:
    return b'{"schema_id": ' + schema_id + b', "payload": {' + payload_members + b"}}"


FLIGHT_MESSAGES = {
    "fig_5_1_payload.json": FLIGHT_PAYLOAD,
    "fig_5_2_photo_payload.json": PHOTO_PAYLOAD,
    "minimal_required.json": msg(REQ),
    "empty_payload.json": msg(b""),
    "missing_payload.json": b'{"schema_id": "flight_booking_v1"}',
    "missing_schema_id.json": b'{"payload": {' + REQ + b"}}",
    "schema_id_number.json": msg(REQ, b"1"),
    "schema_id_mismatch.json": msg(REQ, b'"flight_booking_v2"'),
    "payload_array.json": b'{"schema_id": "flight_booking_v1", "payload": ["origin", "PEK"]}',
    "payload_null.json": b'{"schema_id": "flight_booking_v1", "payload": null}',
    "message_array.json": b'[{"schema_id": "flight_booking_v1"}]',
    "message_string.json": b'"flight_booking_v1"',
    "dup_key_last_wins.json": msg(REQ + b', "passenger_count": "two", "passenger_count": 2'),
    "dup_key_first_wins_bad.json": msg(REQ + b', "passenger_count": 2, "passenger_count": "two"'),
    "dup_unknown_key.json": msg(REQ + b', "seat": "12A", "seat": "12B"'),
    "dup_payload.json": b'{"schema_id": "flight_booking_v1", "payload": {}, "payload": {' + REQ + b"}}",
    "dup_schema_id.json": b'{"schema_id": "x", "payload": {' + REQ + b'}, "schema_id": "flight_booking_v1"}',
    "escaped_key_names.json": b'{"schema\\u005fid": "flight_booking_v1", "p\\u0061yload": {"or\\u0069gin": "PEK", "destination": "SHA", "departure_date": "2026-05-04"}}',
    "escaped_dup_key.json": msg(REQ + b', "or\\u0069gin": 7'),
    "escaped_schema_id_value.json": msg(REQ, b'"flight\\u005fbooking_v1"'),
    "integer_2_0.json": msg(REQ + b', "passenger_count": 2.0'),
    "integer_2_5.json": msg(REQ + b', "passenger_count": 2.5'),
    "integer_exponent.json": msg(REQ + b', "passenger_count": 1E+2'),
    "integer_neg_zero.json": msg(REQ + b', "passenger_count": -0'),
    "integer_big.json": msg(REQ + b', "passenger_count": 18446744073709551616'),
    "integer_neg_big.json": msg(REQ + b', "passenger_count": -9223372036854775809'),
    "integer_tiny.json": msg(REQ + b', "passenger_count": 1e-320'),
    "boolean_not_integer.json": msg(REQ + b', "passenger_count": true'),
    "null_optionals.json": msg(REQ + b', "cabin_class": null, "passenger_count": null, "other": null'),
    "null_required.json": msg(b'"origin": null, "destination": "SHA", "departure_date": "2026-05-04"'),
    "other_array.json": msg(REQ + b', "other": ["window seat", "vegetarian meal"]'),
    "other_array_bad.json": msg(REQ + b', "other": ["window seat", 1, null]'),
    "other_empty_array.json": msg(REQ + b', "other": []'),
    "other_object.json": msg(REQ + b', "other": {"seat": "window"}'),
    "other_nested.json": msg(REQ + b', "other": [["a"]]'),
    "deep_known.json": msg(REQ + b', "cabin_class": ' + b"[" * 40 + b"1" + b"]" * 40),
    "deep_unknown.json": msg(REQ + b', "extra": ' + b'{"a":' * 40 + b"1" + b"}" * 40),
    "deep_depth3.json": msg(REQ + b', "origin": {"a": [[1]]}'),
    "unknown_keys.json": msg(REQ + b', "seat_preference": "window", "meal": "veg", "a/b~c": 1'),
    "many_keys.json": msg(REQ + b"".join(b', "k%d": %d' % (i, i) for i in range(12))),
    "unicode_strings.json": msg(b'"origin": "\\u5317\\u4eac", "destination": "\xe4\xb8\x8a\xe6\xb5\xb7", "departure_date": "\\ud83d\\ude00"'),
    "whitespace.json": b' \n\t{ "schema_id" :"flight_booking_v1" ,\r\n"payload":{' + REQ + b"} } \n",
    "trailing_garbage.json": FLIGHT_PAYLOAD + b" x",
    "truncated.json": FLIGHT_PAYLOAD[:-3],
    "extra_message_members.json": b'{"schema_id": "flight_booking_v1", "payload": {' + REQ + b'}, "trace": {"id": [1, 2.5, null]}}',
}


def key(name, ty, required, desc=b"d", default=None, has_default=False, extra=b""):
    out = b'{"key_name": ' + name + b', "key_type": "' + ty + b'", "required": ' + (b"true" if required else b"false")
    if has_default:
        out += b', "default_value": ' + default
    out += b', "semantic_description": "' + desc + b'"' + extra + b"}"
    return out


def template(keys, schema_id=b'"t_v1"', extra=b""):
    return b'{"schema_id": ' + schema_id + b', "scenario": "t"' + extra + b', "keys": [' + b", ".join(keys) + b"]}"


ALL_TYPES = template([
    key(b'"s"', b"string", True),
    key(b'"i"', b"integer", False, default=b"2.0", has_default=True),
    key(b'"n"', b"number", False, default=b"1.5", has_default=True),
    key(b'"b"', b"boolean", False, default=b"false", has_default=True),
    key(b'"a"', b"array", False, default=b"[[1], [2, [3]]]", has_default=True),
    key(b'"o"', b"object", False, default=b'{"k": {"j": [1]}}', has_default=True),
    key(b'"z"', b"null", True),
    key(b'"other"', b"array", False, default=b'["x", "y"]', has_default=True),
])
BIG = template([key(b'"k%d"' % i, b"integer" if i % 2 else b"string", i % 3 == 0) for i in range(130)], b'"big"')
BIG_MSG = msg(b", ".join(b'"k%d": %s' % (i, b"%d" % i if i % 2 else b'"v"') for i in range(0, 130, 3)), b'"big"')

TEMPLATES = {
    # name: (opts byte, template, message)
    "fig2_fig5_1": (0x00, FLIGHT_TEMPLATE, FLIGHT_PAYLOAD),
    "fig2_min_tight": (0x25, FLIGHT_TEMPLATE, msg(REQ)),
    "fig2_dup_limits": (0xA6, FLIGHT_TEMPLATE, msg(REQ + b', "passenger_count": "2", "passenger_count": 2')),
    "a1_a2": (0x1B, A1_TEMPLATE, FLIGHT_PAYLOAD),
    "a3_fig_5_2": (0x3F, PHOTO_TEMPLATE, PHOTO_PAYLOAD),
    "a3_defaults_only": (0x00, PHOTO_TEMPLATE, b'{"schema_id": "photo_retouch_v2", "payload": {}}'),
    "fig3_key_only": (0x00, FIGURE_3, FLIGHT_PAYLOAD),
    "all_types": (0x00, ALL_TYPES, msg(b'"s": "x", "z": null, "i": 3.0, "other": ["p"]', b'"t_v1"')),
    "all_types_limits": (0x61, ALL_TYPES, msg(b'"s": "x", "z": null', b'"t_v1"')),
    "big_heap_keyset": (0x00, BIG, BIG_MSG),
    "escaped_names": (0x00, template([key(b'"or\\u0069gin"', b"string", True), key(b'"n"', b"integer", False, default=b"1E2", has_default=True)]), msg(b'"origin": "PEK"', b'"t_v1"')),
    "extra_members": (0x20, template([key(b'"a"', b"string", False, extra=b', "x-enum": ["p", "q"], "x-weight": 0.1')], extra=b', "x-vendor": {"k": [1, 2.5, -0]}, "version": 3'), msg(b'"a": "p", "b": 1', b'"t_v1"')),
    "no_other_declared": (0x00, template([key(b'"a"', b"number", True)]), msg(b'"a": 1, "other": ["x", "y"]', b'"t_v1"')),
    "explicit_null_default": (0x00, template([key(b'"a"', b"string", True, default=b"null", has_default=True)]), msg(b'"a": null', b'"t_v1"')),
    "duplicate_json_members": (0x00, b'{"schema_id": "a", "schema_id": "t_v1", "scenario": "t", "keys": [], "keys": [' + key(b'"a"', b"string", False) + b"]}", msg(b'"a": "x"', b'"t_v1"')),
    "every_problem": (0x00, b"""{"schema_id": "s", "keys": [
        {"key_name": "Bad", "key_type": "float", "required": "yes", "semantic_description": "x"},
        {"key_name": "a", "key_type": "string", "required": true, "semantic_description": "d"},
        {"key_name": "a", "key_type": "integer", "required": false, "default_value": "1", "semantic_description": "y"},
        {"key_name": "other", "key_type": "object", "required": true, "semantic_description": "z"},
        7,
        {"key_name": "b", "key_type": "string", "required": true}]}""", b"{}"),
    "empty_description": (0x00, template([key(b'"a"', b"string", False, desc=b" ")]), msg(b"", b'"t_v1"')),
    "unicode_schema_id": (0x00, template([key(b'"a"', b"string", False)], b'"\\u00e9t\xc3\xa9/~"'), msg(b'"a": "x"', b'"\xc3\xa9t\xc3\xa9/~"')),
    "not_json": (0x00, b"{", b"{}"),
    "deprecated_key": (0x00, template([key(b'"a"', b"string", False, extra=b', "deprecated": true'), key(b'"b"', b"integer", True, extra=b', "experimental": true, "sensitive": true')]), msg(b'"a": "x", "b": 2', b'"t_v1"')),
    # Without serde_json's float_roundtrip this float drifts by one ULP on
    # each parse -> serialize -> parse (see docs/fuzzing.md).
    "float_drift": (0x00, template([key(b'"n"', b"number", False, default=b"1.0715660391465826e-75", has_default=True)], extra=b', "x": -1.81996730402717e-179'), msg(b"", b'"t_v1"')),
}


def write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main() -> None:
    for name, data in FLIGHT_MESSAGES.items():
        write(os.path.join(SEEDS, "payload_against_flight", name), data)
    for name, (opts, tpl, message) in TEMPLATES.items():
        assert len(tpl) < 1 << 16, name
        write(os.path.join(SEEDS, "template_and_payload", name + ".bin"),
              struct.pack("<HB", len(tpl), opts) + tpl + message)
    # Also every flight message against Figure 2 (default options).
    for name, data in FLIGHT_MESSAGES.items():
        write(os.path.join(SEEDS, "template_and_payload", "fig2_" + name.replace(".json", ".bin")),
              struct.pack("<HB", len(FLIGHT_TEMPLATE), 0) + FLIGHT_TEMPLATE + data)


if __name__ == "__main__":
    main()
