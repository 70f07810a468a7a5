#!/usr/bin/env python3
"""Per-message validation cost from Python: sdsi against jsonschema-rs and
pure-Python jsonschema, on the templates and messages of benches/validate.rs.

jsonschema-rs and jsonschema validate against the template's own JSON Schema
export (``CompiledSchema.json_schema()``), so all three apply the same rules.
Every figure is a median over several repeats taken in this process; read the
ratios, not the absolute times (see README.md).

    python python/bench/bench.py [--quick] [--json PATH]
"""

import argparse
import importlib.metadata
import json
import os
import platform
import statistics
import sys
import timeit
from pathlib import Path

import jsonschema
import jsonschema_rs
import sdsi

try:  # optional: the bytes tables gain an `orjson.loads` column
    import orjson
except ImportError:
    orjson = None

# python/bench/bench.py -> repository root, so the script runs from anywhere.
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "benches" / "fixtures"

# --- The cases: a port of benches/validate.rs, message for message. --------

TYPES = ["string", "integer", "number", "boolean", "array", "object"]


def synthetic_name(i, ty):
    return f"attr_{i:02d}_{ty}"


def synthetic_value(i, ty):
    return {"string": f"value for key {i}", "integer": i * 7, "number": i + 0.25,
            "boolean": i % 2 == 0, "array": ["red", "green", "blue"],
            "object": {"unit": "cm", "value": i}}[ty]


def synthetic_template():
    """49 typed keys cycling the six types; every third required (17), the
    next one after each with a default (16); then `other`: 50 keys."""
    keys = []
    for i in range(49):
        ty = TYPES[i % len(TYPES)]
        description = (f"Synthetic attribute number {i} of type {ty}. Acceptable values: any {ty}. "
                       f"Example mapping: 'set attribute {i}' -> a {ty} value.")
        keys.append({"key_name": synthetic_name(i, ty), "key_type": ty, "required": i % 3 == 0,
                     "semantic_description": description,
                     **({"default_value": synthetic_value(i, ty)} if i % 3 == 1 else {})})
    keys.append({"key_name": "other", "key_type": "string", "required": False,
                 "semantic_description": "Natural-language requests that cannot be mapped to existing keys."})
    return {"schema_id": "synthetic_v1", "scenario": "synthetic", "keys": keys}


def synthetic_payload(template):
    """Every required key, all optional ones but every sixth, `other`: 42 members."""
    payload = {}
    for i, key in enumerate(template["keys"]):
        if key["key_name"] == "other":
            payload["other"] = "deliver after 6 pm"
        elif key["required"] or i % 6 != 5:
            payload[key["key_name"]] = synthetic_value(i, key["key_type"])
    return payload


def trip_template():
    def key(name, ty, required, description, **default):
        return {"key_name": name, "key_type": ty, "required": required,
                "semantic_description": description,
                **({"default_value": default["default"]} if default else {})}
    return {"schema_id": "trip_plan_v1", "scenario": "trip_planning", "keys": [
        key("traveller", "object", True, "Who travels: name, contact details, loyalty programmes."),
        key("legs", "array", True, "The journey's legs in order, each with its segments and seats."),
        key("budget", "object", False, "Spending limit: amount and currency."),
        key("tags", "array", False, "Free labels for the trip.", default=[]),
        key("passengers", "integer", False, "Number of travellers.", default=1),
        key("flexible", "boolean", False, "Whether dates may move by a day.", default=False),
        key("other", "string", False, "Anything the other keys do not cover."),
    ]}


def trip_payload():
    def leg(origin, to, date, flight, row):
        return {"from": origin, "to": to, "date": date,
                "segments": [{"flight": flight, "seat": {"row": row, "letter": "A"},
                              "meals": ["vegetarian", "no nuts"]}]}
    return {
        "traveller": {
            "name": "Ada Lovelace",
            "contact": {"email": "ada@example.org", "phones": ["+44 20 7946 0000"]},
            "loyalty": [{"programme": "skyclub", "number": "SC123456", "tier": {"level": 2}}],
        },
        "legs": [leg("LHR", "PEK", "2026-05-04", "CA938", 12),
                 leg("PEK", "SHA", "2026-05-09", "MU5102", 30),
                 leg("SHA", "LHR", "2026-05-15", "VS251", 7)],
        "budget": {"amount": 2400.5, "currency": "GBP"},
        "tags": ["conference", "family"],
        "other": "aisle seats where possible",
    }


def message(schema_id, payload):
    # Through JSON text, so the dict is what `json.loads` hands a server: its
    # keys are fresh `str` objects, not the interned literals written above
    # (a validator that matches names by identity would look faster on those).
    return json.loads(json.dumps({"schema_id": schema_id, "payload": payload}))


def cases():
    """(name, template, valid message, invalid message); each invalid message
    carries exactly four problems, as in the Rust bench."""
    flight = sdsi.SchemaTemplate.from_json((FIXTURES / "flight_booking_v1.template.json").read_bytes())
    flight_valid = message("flight_booking_v1", {
        "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04",
        "cabin_class": "business", "passenger_count": 1, "other": "window seat"})
    # Missing `destination`, two type mismatches, one unknown key.
    flight_invalid = message("flight_booking_v1", {
        "origin": "PEK", "departure_date": "2026-05-04", "cabin_class": 2,
        "passenger_count": "two", "seat_preference": "window", "other": "window seat"})

    photo = sdsi.SchemaTemplate.from_json((FIXTURES / "photo_retouch_v2.template.json").read_bytes())
    photo_valid = message("photo_retouch_v2", {
        "skin_smoothing": 7, "teeth_whitening": True, "background_blur": True,
        "filter_style": "vintage", "eye_enlargement": False,
        "other": "increase eye size proportionally"})
    # Two type mismatches, an `other` array with a non-string, one unknown key.
    photo_invalid = message("photo_retouch_v2", {
        "skin_smoothing": "high", "teeth_whitening": "yes", "background_blur": True,
        "filter_style": "vintage", "eye_enlargement": False, "eye_size_scale": 1.2,
        "other": ["increase eye size proportionally", 3]})

    synthetic = synthetic_template()
    payload = synthetic_payload(synthetic)
    # Missing required key 0, type mismatches on keys 1 and 2, one unknown key.
    bad = dict(payload)
    del bad[synthetic_name(0, "string")]
    bad[synthetic_name(1, "integer")] = "seven"
    bad[synthetic_name(2, "number")] = True
    bad["attr_unknown"] = 1

    # Missing `legs`, `budget` a string, `passengers` a fraction, one unknown key.
    trip_bad = trip_payload()
    del trip_bad["legs"]
    trip_bad.update(budget="2400 GBP", passengers=2.5, hotel={"stars": 4})

    return [
        ("flight", flight, flight_valid, flight_invalid),
        ("photo", photo, photo_valid, photo_invalid),
        ("synthetic50", sdsi.SchemaTemplate.from_dict(synthetic),
         message("synthetic_v1", payload), message("synthetic_v1", bad)),
        ("trip", sdsi.SchemaTemplate.from_dict(trip_template()),
         message("trip_plan_v1", trip_payload()), message("trip_plan_v1", trip_bad)),
    ]


def to_bytes(msg):
    # Compact with sorted keys: the text serde_json::to_vec writes in the Rust bench.
    return json.dumps(msg, separators=(",", ":"), sort_keys=True).encode()


# --- Agreement: a comparison means nothing if the libraries disagree. --------

def check(name, schema, rs, py, msg, expect_valid):
    """Returns each library's error count; exits if any verdict is off."""
    raw = to_bytes(msg)
    sdsi_dict, sdsi_bytes = schema.validate(msg), schema.validate(raw)
    counts = {"sdsi": len(sdsi_dict.errors),
              "jsonschema_rs": len(list(rs.iter_errors(msg))),
              "jsonschema": len(list(py.iter_errors(msg)))}
    verdicts = {
        "sdsi.is_valid(dict)": schema.is_valid(msg),
        "sdsi.validate(dict).valid": sdsi_dict.valid,
        "sdsi.is_valid(bytes)": schema.is_valid(raw),
        "sdsi.validate(bytes).valid": sdsi_bytes.valid,
        "jsonschema_rs.is_valid": rs.is_valid(msg),
        "jsonschema_rs.is_valid(json.loads)": rs.is_valid(json.loads(raw)),
        "jsonschema.is_valid": py.is_valid(msg),
        **{f"{lib} reports no errors": n == 0 for lib, n in counts.items()},
    }
    wrong = [call for call, verdict in verdicts.items() if verdict != expect_valid]
    same_report = [(i.code, i.path) for i in sdsi_dict.errors] == \
        [(i.code, i.path) for i in sdsi_bytes.errors]
    if wrong or not same_report:
        want = "valid" if expect_valid else "invalid"
        sys.exit(f"DISAGREEMENT on {name} ({want} message): {wrong or 'sdsi dict/bytes reports differ'}\n"
                 f"sdsi errors: {[(i.code, i.path, i.message) for i in sdsi_dict.errors]}")
    return counts


# --- Timing. ----------------------------------------------------------------

# Each contender is a timeit statement over the same names: `f` is the bound
# method under test, `m` the message, `loads` json.loads, `oloads`
# orjson.loads. Statements rather than lambdas keep the loop overhead (equal
# for all) small next to the call. A report row reads every issue's message:
# jsonschema_rs and jsonschema build theirs with each error, sdsi renders
# its own only when asked.
MEASURES = {
    "dict_is_valid": ("from a dict: is_valid", {
        "sdsi": ("sdsi.is_valid", "f(m)"),
        "jsonschema_rs": ("rs.is_valid", "f(m)"),
        "jsonschema": ("py.is_valid", "f(m)"),
    }),
    # From a dict, validate() copies the normalized payload unless told not
    # to: `normalized=False` is the like-for-like of iter_errors (verdict and
    # errors only), the default pays for the copy, the last row reads it.
    "dict_report": ("from a dict: full error report", {
        "sdsi": ("sdsi.validate", "r = f(m, normalized=False); r.valid; [i.message for i in r.errors]"),
        "sdsi kept": ("sdsi.validate", "r = f(m); r.valid; [i.message for i in r.errors]"),
        "sdsi+normalized": ("sdsi.validate", "r = f(m); r.valid; [i.message for i in r.errors]; r.normalized"),
        "jsonschema_rs": ("rs.iter_errors", "[e.message for e in f(m)]"),
        "jsonschema": ("py.iter_errors", "[e.message for e in f(m)]"),
    }),
    "bytes_is_valid": ("from bytes: is_valid (others: json.loads first)", {
        "sdsi": ("sdsi.is_valid", "f(m)"),
        "jsonschema_rs": ("rs.is_valid", "f(loads(m))"),
        "jsonschema_rs+orjson": ("rs.is_valid", "f(oloads(m))"),
    }),
    # json.loads hands the caller a dict; sdsi's counterpart is .normalized,
    # so that row is the like-for-like one here.
    "bytes_report": ("from bytes: full error report (others: json.loads first)", {
        "sdsi": ("sdsi.validate", "r = f(m); r.valid; [i.message for i in r.errors]"),
        "sdsi+normalized": ("sdsi.validate", "r = f(m); r.valid; [i.message for i in r.errors]; r.normalized"),
        "jsonschema_rs": ("rs.iter_errors", "[e.message for e in f(loads(m))]"),
        "jsonschema_rs+orjson": ("rs.iter_errors", "[e.message for e in f(oloads(m))]"),
    }),
}
if orjson is None:
    for _, contenders in MEASURES.values():
        contenders.pop("jsonschema_rs+orjson", None)


def number_for(timer, target_s):
    """Calls per repeat so one repeat lasts about target_s (also warms up).
    A time budget, not a call count, so slow pure-Python jsonschema gets
    proportionally fewer calls and every contender costs the same wall time."""
    n = 1
    while True:
        t = timer.timeit(n)
        if t >= target_s / 10:
            return max(1, round(n * target_s / t))
        n *= 10


def time_row(timers, repeats, target_s):
    """Median ns per call for each contender. Repeats are interleaved across
    contenders so a burst of machine noise hits them all, not just one."""
    numbers = {c: number_for(t, target_s) for c, t in timers.items()}
    samples = {c: [] for c in timers}
    for _ in range(repeats):
        for c, t in timers.items():
            samples[c].append(t.timeit(numbers[c]) * 1e9 / numbers[c])
    return {c: (statistics.median(s), numbers[c], s) for c, s in samples.items()}


def dist(*names):
    for n in names:
        try:
            return importlib.metadata.version(n)
        except importlib.metadata.PackageNotFoundError:
            pass
    return "?"


def versions():
    return {"python": platform.python_version(), "platform": platform.platform(),
            "sdsi": getattr(sdsi, "__version__", None) or dist("sdsi"),
            "jsonschema_rs": getattr(jsonschema_rs, "__version__", None)
            or dist("jsonschema_rs", "jsonschema-rs"),
            "jsonschema": dist("jsonschema"),
            "orjson": getattr(orjson, "__version__", None) or (dist("orjson") if orjson else "not installed")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: few, short repeats")
    ap.add_argument("--json", metavar="PATH", help="also write the raw medians as JSON")
    args = ap.parse_args()
    repeats, target_s = (3, 0.01) if args.quick else (7, 0.1)

    info = versions()
    print("# sdsi Python validation benchmark\n")
    for k, v in info.items():
        print(f"- {k}: {v}")
    print(f"- cpus: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.2f}")
    print(f"- {repeats} repeats of ~{target_s * 1000:g} ms per contender, interleaved; "
          "median ns per message; timeit (GC off while timing)\n")

    prepared, counts_rows = [], []
    for name, template, valid, invalid in cases():
        schema = sdsi.CompiledSchema(template)
        export = schema.json_schema()
        rs = jsonschema_rs.validator_for(export)
        py = jsonschema.Draft202012Validator(export)
        for label, msg, expect in (("valid", valid, True), ("invalid", invalid, False)):
            counts = check(name, schema, rs, py, msg, expect)
            counts_rows.append((name, label, len(to_bytes(msg)), counts))
            prepared.append((name, label, msg, schema, rs, py))
    print("All three libraries agree on every verdict.\n")
    print("| template | message | bytes | sdsi errors | jsonschema_rs errors | jsonschema errors |")
    print("|---|---|--:|--:|--:|--:|")
    for name, label, size, c in counts_rows:
        print(f"| {name} | {label} | {size} | {c['sdsi']} | {c['jsonschema_rs']} | {c['jsonschema']} |")

    results = []
    for measure, (title, contenders) in MEASURES.items():
        sdsi_cols = [c for c in contenders if c.startswith("sdsi")]
        other_cols = [c for c in contenders if not c.startswith("sdsi")]
        ratio_cols = [(o, s) for o in other_cols for s in sdsi_cols]
        print(f"\n## {title}\n")
        print("| template | message | " + " | ".join(f"{c} ns" for c in contenders) + " | "
              + " | ".join(f"{o} ÷ {s}" for o, s in ratio_cols) + " |")
        print("|---|---|" + "--:|" * (len(contenders) + len(ratio_cols)))
        for name, label, msg, schema, rs, py in prepared:
            subject = to_bytes(msg) if measure.startswith("bytes") else msg
            methods = {"sdsi.is_valid": schema.is_valid, "sdsi.validate": schema.validate,
                       "rs.is_valid": rs.is_valid, "rs.iter_errors": rs.iter_errors,
                       "py.is_valid": py.is_valid, "py.iter_errors": py.iter_errors}
            timers = {c: timeit.Timer(stmt, setup="f = _f; m = _m; loads = _loads; oloads = _oloads",
                                      globals={"_f": methods[fn], "_m": subject, "_loads": json.loads,
                                               "_oloads": orjson and orjson.loads})
                      for c, (fn, stmt) in contenders.items()}
            row = time_row(timers, repeats, target_s)
            med = {c: v[0] for c, v in row.items()}
            print(f"| {name} | {label} | " + " | ".join(f"{med[c]:,.0f}" for c in contenders) + " | "
                  + " | ".join(f"{med[o] / med[s]:.2f}" for o, s in ratio_cols) + " |", flush=True)
            results += [{"measure": measure, "template": name, "message": label, "contender": c,
                         "median_ns": m, "calls_per_repeat": n, "samples_ns": s}
                        for c, (m, n, s) in row.items()]
    print("\nRatios are the other library's median ÷ sdsi's: > 1 means sdsi is faster.")

    if args.json:
        Path(args.json).write_text(json.dumps(
            {**info, "repeats": repeats, "target_s": target_s, "results": results}, indent=1))


if __name__ == "__main__":
    main()
