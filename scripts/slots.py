#!/usr/bin/env python3
"""The slot measure: does `sdsi evolve` give each attribute a template is
missing exactly one key, of the type and with the values a designer would
choose, named after it?

SNIPS utterances carry their slots inline. For an intent, a template is
built with one key per slot except the missing ones (and `other`); every
missing slot becomes 200 requests over 3 days from 10 clients (drawn from a
shared set of 30, so clients overlap between slots), each an utterance
carrying that slot and no other missing one (without repeats when the
corpus holds 200 such, else with), its present slots in their keys and its
whole text in `other`; plus 60 one-off requests (utterances
of other intents, each from its own client). The stream goes through
`sdsi evolve` with its defaults; each key proposed or held (new or a
refinement) is credited to the missing slot its quoted examples come from,
failing those to the slot of the request that opened its gate (starred in
the table: a weak credit, as every request of a case is the same intent).
Per missing slot:

- good: exactly one new key for it, of the expected type (`integer` when
  2/3 of the slot's values are whole numbers, in digits or words, else
  `string`); refinements of a key are counted apart, not against it;
- values: how many of the slot's 5 commonest values (as sent) the key's
  description names, as whole words; in brackets, how many of them it names
  outside its quoted examples, i.e. lists (a quote carries a value by
  construction; a word of the key's own name still counts);
- named: the key name shares a stem (first 4 letters) with a word of the
  slot's name. The names are printed so a person can judge.

Keys from noise are keys credited to no missing slot; fused keys are keys
credited to one slot that quote another missing slot too.

    scripts/slots.py generate --data DIR --intent BookRestaurant --missing facility,sort --seed 1 --out run/
    scripts/slots.py score run/truth.json evolve-output.jsonl [--events run/events.jsonl]
    scripts/slots.py run --data DIR [--model MODEL_DIR] [--split calibration|held-out|all]
        [--seeds 1-3] [--sdsi PATH]

`run` does all three for every case of the split (`CASES`) and seed, prints
one JSON line per run (its keys, with description excerpts) and a table.
Standard library only.
"""

import argparse
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import datetime, timezone

from bursts import normal, seeds  # the same normalisation as the burst measure

START = 1780300800  # 2026-06-01T08:00:00Z, as bursts.py
# The fixed partition. Missing slots are the ones a template designer would
# plausibly leave out: mostly low-cardinality attributes, with a few
# free-text ones (artist, genre, entity_name, cuisine). A request carries
# one missing slot, so a case's slots must seldom share an utterance, and
# SNIPS's utterances come from templates that tie slots together: facility,
# sort and cuisine never come without restaurant_type; RateBook's
# rating_value is in every utterance and SearchCreativeWork's object_name
# too (so each is a case of its own); SearchScreeningEvent's
# spatial_relation without movie_type is only "nearest"/"closest", RateBook's
# object_type without object_select only "book" (hence not those pairs).
# Every intent but SearchCreativeWork is in both splits, and each slot name
# in both (spatial_relation, object_type, sort, music_item, an integer) is
# there from another intent.
CASES = {
    "calibration": [
        ("AddToPlaylist", ["playlist_owner", "artist"]),
        ("BookRestaurant", ["restaurant_type", "party_size_number", "spatial_relation"]),
        ("GetWeather", ["condition_temperature", "current_location"]),
        ("PlayMusic", ["music_item", "sort", "genre"]),
        ("RateBook", ["object_select", "object_part_of_series_type"]),
        ("SearchCreativeWork", ["object_type"]),
        ("SearchScreeningEvent", ["movie_type", "object_location_type"]),
    ],
    "held-out": [
        ("AddToPlaylist", ["music_item", "entity_name"]),
        ("BookRestaurant", ["facility", "sort", "cuisine"]),
        ("GetWeather", ["condition_description", "spatial_relation"]),
        ("PlayMusic", ["service", "year"]),
        ("RateBook", ["rating_unit", "object_type"]),
        ("RateBook", ["rating_value"]),
        ("SearchScreeningEvent", ["object_type", "spatial_relation"]),
    ],
}
NUMBERS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
NUMBERS.update({w: 10 * n for n, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)})


def snake(name):
    """AddToPlaylist → add_to_playlist, timeRange → time_range."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def whole_number(text):
    """The whole number a slot value spells ("8", "nine", "twenty-one"), or None."""
    text = text.strip().lower()
    if re.fullmatch(r"\d{1,9}", text):
        return int(text)
    words = re.split(r"[\s-]+", text)
    if words and all(w in NUMBERS for w in words) and len(words) <= 2:
        return sum(NUMBERS[w] for w in words)
    return None


def load(data, intent):
    """An intent's training utterances, each (text, [(slot, value), ...])."""
    raw = open(os.path.join(data, f"train_{intent}.json"), "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        try:  # train_PlayMusic.json spells emoji as two UTF-8-encoded surrogates
            text = raw.decode("utf-8", "surrogatepass").encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeError:
            text = raw.decode("latin-1")
    utterances = []
    for item in json.loads(text)[intent]:
        chunks = item["data"]
        utterances.append(("".join(c["text"] for c in chunks).strip(),
                           [(c["entity"], c["text"].strip()) for c in chunks if c.get("entity")]))
    return utterances


def slot_type(values):
    """`integer` when at least 2/3 of the values are whole numbers, else `string`."""
    numbers = sum(whole_number(v) is not None for v in values)
    return "integer" if values and 3 * numbers >= 2 * len(values) else "string"


def stamp(seconds):
    return datetime.fromtimestamp(START + int(seconds), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def generate(data, intent, missing, seed, out, per_slot=200, clients=10, shared=30, days=3, noise=60):
    rng = random.Random(seed)
    utterances = load(data, intent)
    values = {}
    for _, slots in utterances:
        for slot, value in slots:
            values.setdefault(slot, []).append(value)
    unknown = [m for m in missing if m not in values]
    if unknown:
        sys.exit(f"{intent} has no slot {', '.join(unknown)} (it has {', '.join(sorted(values))})")
    types = {slot: slot_type(v) for slot, v in values.items()}
    scenario = snake(intent)
    template = {"schema_id": f"{scenario}_v1", "scenario": scenario, "keys": [
        {"key_name": snake(slot), "key_type": types[slot], "required": False,
         "semantic_description": f"The {snake(slot)} the request names"}
        for slot in sorted(values) if slot not in missing]}
    template["keys"].append({"key_name": "other", "key_type": "string", "required": False,
                             "semantic_description": "Anything the request says that no other key covers"})
    agents = [f"agent-{k:02d}" for k in range(shared)]
    events, slot_of, sent, pools = [], {}, {m: Counter() for m in missing}, {}
    for m in missing:
        pool = [u for u in utterances if {s for s, _ in u[1]} & set(missing) == {m}]
        if not pool:
            sys.exit(f"{intent}: no utterance carries {m} without another missing slot")
        pools[m] = len(pool)
        chosen = rng.sample(pool, per_slot) if len(pool) >= per_slot else [rng.choice(pool) for _ in range(per_slot)]
        senders = rng.sample(agents, clients)
        for text, slots in chosen:
            payload = {}
            for slot, value in slots:
                if slot == m:
                    sent[m][value.lower()] += 1
                elif snake(slot) not in payload:  # a slot given twice: its first value
                    number = whole_number(value) if types[slot] == "integer" else None
                    payload[snake(slot)] = value if number is None else number
            payload["other"] = text
            events.append((rng.uniform(0, days * 86400), rng.choice(senders), payload))
            slot_of.setdefault(normal(text), m)
    others = [u for name in intents(data) if name != intent for u in load(data, name)]
    for k, (text, _) in enumerate(rng.sample(others, noise)):
        events.append((rng.uniform(0, days * 86400), f"one-off-{k:03d}", {"other": text}))
        slot_of.setdefault(normal(text), "noise")
    events.sort(key=lambda e: e[0])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "events.jsonl"), "w") as f:
        for at, client, payload in events:
            message = {"schema_id": template["schema_id"], "payload": payload}
            f.write(json.dumps({"at": stamp(at), "client": client, "message": message}) + "\n")
    with open(os.path.join(out, "template.json"), "w") as f:
        json.dump(template, f, indent=1)
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump({"intent": intent, "seed": seed, "missing": missing, "slot_of": slot_of,
                   "values": {m: dict(sent[m].most_common()) for m in missing},
                   "types": {m: types[m] for m in missing}, "pool": pools}, f)
    return out


def intents(data):
    return sorted(os.path.basename(p)[len("train_"):-len(".json")]
                  for p in glob.glob(os.path.join(data, "train_*.json")))


def proposals(lines):
    """Every key a `proposed` or `held` event carries: (name, type,
    description, new or a refinement, the event's line, why held). Held for
    any reason, not only `sensitive` as in bursts.py: a key waiting for an
    operator is still the key the loop would give the slot."""
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") not in ("proposed", "held"):
            continue
        patch = event.get("patch") or {}
        for kind in ("new_keys", "modified_keys"):
            for key in patch.get(kind) or []:
                yield {"name": key["key_name"], "type": key.get("key_type"),
                       "description": key.get("semantic_description", ""), "new": kind == "new_keys",
                       "line": event.get("line"), "held": event.get("reason")}


def quotes(description):
    """The texts a description quotes after "For example"."""
    parts = re.split(r"[Ff]or example", description, maxsplit=1)
    return re.findall(r'"([^"]*)"', parts[1]) if len(parts) == 2 else []


def quoted_slot(quote, slot_of):
    """As bursts.py's `quoted_intent`: the slot (or "noise") of the text a
    quote equals, or of all the texts it is a clause of when they agree."""
    q = normal(quote)
    if q in slot_of:
        return slot_of[q]
    q = q.rstrip(".!?,;: ").lower()
    found = {s for text, s in slot_of.items() if q and q in text.lower()}
    return found.pop() if len(found) == 1 else None


def line_texts(events_path):
    """The `other` text of each line of the events file, by line number."""
    texts = {}
    if events_path and os.path.exists(events_path):
        for number, line in enumerate(open(events_path), start=1):
            other = json.loads(line)["message"]["payload"].get("other")
            if isinstance(other, str):
                texts[number] = other
    return texts


def words(name):
    return [w.lower() for w in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])|[^A-Za-z0-9]+", name) if w]


def named_after(key_name, slot):
    """Whether a key name shares a stem (first 4 letters, or a whole shorter word) with the slot's name."""
    return any(a[:4] == b[:4] if min(len(a), len(b)) >= 4 else a == b
               for a in words(key_name) for b in words(slot))


def names(description, value):
    return re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", description, re.I) is not None


def label(key):
    """name:type, starred when credited by the request that opened the gate (it quotes nothing)."""
    return f"{key['name']}:{key['type']}" + ("*" if key["by"] == "line" else "")


def score(truth, lines, texts=None):
    missing, slot_of, texts = truth["missing"], truth["slot_of"], texts or {}
    keys = list(proposals(lines))
    for key in keys:
        votes = Counter(quoted_slot(q, slot_of) for q in quotes(key["description"]))
        votes.pop(None, None)
        slot, key["by"] = (votes.most_common(1)[0][0], "quotes") if votes else (None, None)
        if slot is None and key["line"] in texts:  # no quote: the request that opened the gate
            slot, key["by"] = slot_of.get(normal(texts[key["line"]])), "line"
        key["slot"] = slot
        # Fused: the key's quotes come from more than one missing slot.
        key["fused"] = slot in missing and any(s in missing and s != slot for s in votes)
    slots = {}
    for m in missing:
        new = [k for k in keys if k["slot"] == m and k["new"]]
        refined = [k for k in keys if k["slot"] == m and not k["new"]]
        top = list(truth["values"][m])[:5]
        best, listed = 0, 0
        for key in new or refined:
            # The key's description with its refinements', all they say of it.
            said = " ".join(k["description"] for k in keys if k["name"] == key["name"])
            bare = re.sub(r'"[^"]*"', " ", said)  # without the quoted examples
            found = (sum(names(said, v) for v in top), sum(names(bare, v) for v in top))
            best, listed = max((best, listed), found)
        slots[m] = {"good": len(new) == 1 and new[0]["type"] == truth["types"][m],
                    "new": [label(k) for k in new], "refined": [label(k) for k in refined],
                    "type": truth["types"][m], "type_right": any(k["type"] == truth["types"][m] for k in new),
                    "values": best, "listed": listed, "of": len(top),
                    "named": any(named_after(k["name"], m) for k in new)}
    noise = [k for k in keys if k["slot"] not in missing]
    return {"intent": truth["intent"], "missing": missing, "slots": slots,
            "good": sum(s["good"] for s in slots.values()),
            "noise_keys": [label(k) + ("" if k["new"] else " (refinement)") for k in noise],
            "fused": [k["name"] for k in keys if k["fused"]],
            "keys": [{key: k[key] for key in ("name", "type", "new", "slot", "by", "held")}
                     | {"description": k["description"][:240]} for k in keys]}


def evolve(sdsi, run_dir, model):
    command = [sdsi, "evolve", "--schema", os.path.join(run_dir, "template.json"),
               os.path.join(run_dir, "events.jsonl")]
    if model:
        command += ["--model", model]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 1: some lines unreadable, still a replay
        sys.exit(f"sdsi evolve failed ({done.returncode}): {done.stderr or done.stdout[-2000:]}")
    return done.stdout.splitlines()


def row(case, seed, slot, s):
    keys = ", ".join(s["new"]) or "none"
    if s["refined"]:
        keys += f" (+{len(s['refined'])} refinement: {', '.join(s['refined'])})"
    return (f"| {case} | {seed} | {slot} | {'yes' if s['good'] else 'no'} | {keys} "
            f"| {s['type']}{'' if s['type_right'] or not s['new'] else ' (wrong)'} "
            f"| {s['values']}/{s['of']} ({s['listed']} listed) | {'yes' if s['named'] else 'no'} |")


def run(args):
    splits = ["calibration", "held-out"] if args.split == "all" else [args.split]
    results = []
    for split in splits:
        for intent, missing in CASES[split]:
            for seed in seeds(args.seeds):
                with tempfile.TemporaryDirectory(prefix="slots-") as tmp:
                    generate(args.data, intent, missing, seed, tmp)
                    result = score(json.load(open(os.path.join(tmp, "truth.json"))),
                                   evolve(args.sdsi, tmp, args.model),
                                   line_texts(os.path.join(tmp, "events.jsonl")))
                results.append((split, seed, result))
                print(json.dumps({"split": split, "seed": seed, **result}), flush=True)
    print("\n| case | seed | missing slot | good | new keys (name:type) | expected type "
          "| top-5 values in description | named after the slot |")
    print("|---|---|---|---|---|---|---|---|")
    for split, seed, r in results:
        for slot, s in r["slots"].items():
            print(row(f"{split}: {r['intent']}", seed, slot, s))
    print("\n(* credited by the request that opened the gate: the key quotes no request)")
    print("\n| split | good slots | slots with a key | named | right type | keys from noise | fused keys |")
    print("|---|---|---|---|---|---|---|")
    for split in splits:
        mine = [r for s, _, r in results if s == split]
        slots = [s for r in mine for s in r["slots"].values()]
        print(f"| {split} | {sum(s['good'] for s in slots)} of {len(slots)} "
              f"| {sum(bool(s['new']) for s in slots)} | {sum(s['named'] for s in slots)} "
              f"| {sum(s['type_right'] for s in slots)} | {sum(len(r['noise_keys']) for r in mine)} "
              f"| {sum(len(r['fused']) for r in mine)} |")
    for split, seed, r in results:
        if r["noise_keys"] or r["fused"]:
            print(f"{split} {r['intent']} seed {seed}: noise keys {', '.join(r['noise_keys']) or '-'}; "
                  f"fused {', '.join(r['fused']) or '-'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--data", required=True, help="the SNIPS directory (train_<Intent>.json)")
    g.add_argument("--intent", required=True)
    g.add_argument("--missing", required=True, help="the slots the template lacks, comma-separated")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("truth")
    s.add_argument("output", help="what `sdsi evolve` printed")
    s.add_argument("--events", help="the events file (default: beside truth.json)")
    r = sub.add_parser("run")
    r.add_argument("--data", required=True)
    r.add_argument("--model")
    r.add_argument("--split", choices=["calibration", "held-out", "all"], default="held-out")
    r.add_argument("--seeds", default="1-3")
    r.add_argument("--sdsi", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "sdsi"))
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.data, args.intent, args.missing.split(","), args.seed, args.out)
    elif args.command == "score":
        events = args.events or os.path.join(os.path.dirname(args.truth), "events.jsonl")
        print(json.dumps(score(json.load(open(args.truth)), open(args.output), line_texts(events))))
    else:
        run(args)


if __name__ == "__main__":
    main()
