#!/usr/bin/env python3
"""The burst measure: does `sdsi evolve` give each real need exactly one key?

Held-out intents of a labelled corpus become realistic traffic: eight needs,
each 100 requests over 36 hours from 8 clients (drawn from a shared set of
24, so clients overlap between needs), every request one utterance of the
need drawn with repeats from the corpus's real paraphrases; and 180 one-off
requests of other intents, each from its own client. The stream goes
through `sdsi evolve` with its defaults; each proposed key (applied, queued
or held for authorization) is credited to the intent most of its quoted
fragments come from.

    scripts/bursts.py generate --corpus banking77 --data DIR --seed 1 --out run/
    scripts/bursts.py score run/truth.json evolve-output.jsonl
    scripts/bursts.py label-words --banking77 DIR --hwu64 DIR [--seeds 1-6] [--split ...]
    scripts/bursts.py run --banking77 DIR --hwu64 DIR [--model MODEL_DIR] [--seeds 1-5]
        [--split held-out|calibration] [--need-threshold X] [--need-contrast C] [--lending silence|book]
        [--llm-url URL [--llm-model NAME]]   # the LLM inducer (json-object format)

`run` does both for every corpus and seed and prints a table: needs with
exactly one key, extra keys on a need, keys from the one-off noise. Standard
library only.
"""

import argparse
import csv
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

START = datetime(2026, 6, 1, 8, 0, tzinfo=timezone.utc)
TEMPLATE = {
    "schema_id": "support_v1",
    "scenario": "support",
    "keys": [
        {"key_name": "customer_id", "key_type": "string", "required": False,
         "semantic_description": "The customer's reference"},
        {"key_name": "other", "key_type": "string", "required": False,
         "semantic_description": "Anything the customer needs that no other key covers"},
    ],
}


def split_texts(corpus, data, split):
    """A split's texts by intent, as cluster_quality splits them: held-out
    is the intents at odd positions in name order (Banking77's test.csv,
    HWU64's folds 6-10), calibration the even ones (train.csv, folds 1-5)."""
    held = split == "held-out"
    if corpus == "banking77":
        name = "test.csv" if held else "train.csv"
        rows = [(r["text"], r["category"]) for r in csv.DictReader(open(os.path.join(data, name), newline=""))]
    else:
        rows = [(r["text"], r["intent"]) for r in csv.DictReader(open(os.path.join(data, "utterances.csv"), newline=""))
                if (int(r["fold"]) > 5) == held]
    names = sorted({intent for _, intent in rows})
    wanted = {n for i, n in enumerate(names) if i % 2 == int(held)}
    by_intent = defaultdict(list)
    for text, intent in rows:
        if intent in wanted:
            by_intent[intent].append(text)
    return by_intent


def stamp(seconds):
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def generate(corpus, data, seed, out, split="held-out", needs=8, per_need=100, clients=8, hours=36, noise=180):
    rng = random.Random(seed)
    by_intent = split_texts(corpus, data, split)
    intents = sorted(by_intent)
    chosen = rng.sample(intents, needs)  # first draw: `label_words` repeats it
    others = [(t, i) for i in intents if i not in chosen for t in by_intent[i]]
    shared = [f"agent-{k:02d}" for k in range(3 * clients)]
    events = []
    for intent in chosen:
        senders = rng.sample(shared, clients)
        for _ in range(per_need):
            events.append((rng.uniform(0, hours * 3600), rng.choice(senders), rng.choice(by_intent[intent])))
    for k, (text, _) in enumerate(rng.sample(others, noise)):
        events.append((rng.uniform(0, hours * 3600), f"one-off-{k:03d}", text))
    events.sort(key=lambda e: e[0])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "events.jsonl"), "w") as f:
        for at, client, text in events:
            message = {"schema_id": TEMPLATE["schema_id"], "payload": {"other": text}}
            f.write(json.dumps({"at": stamp(int(at)), "client": client, "message": message}) + "\n")
    with open(os.path.join(out, "template.json"), "w") as f:
        json.dump(TEMPLATE, f)
    # Only the texts sent (a key quotes nothing else), so a stream and its
    # truth are small enough to commit as a test fixture.
    sent = {normal(text) for _, _, text in events}
    intent_of = {}
    for text, intent in ((t, i) for i in intents for t in by_intent[i]):
        if normal(text) in sent:
            intent_of.setdefault(normal(text), intent)
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump({"corpus": corpus, "seed": seed, "needs": chosen, "intent_of": intent_of}, f)
    return out


def normal(text):
    """A fragment as a key's description quotes it: whitespace collapsed,
    double quotes as single ones, at most 80 characters."""
    return " ".join(text.split()).replace('"', "'")[:80].strip()


def keys(lines):
    """(key name, description, log line, type) of every key proposed or held."""
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        kind = event.get("event")
        held = kind == "held" and event.get("reason") == "sensitive"
        if kind == "proposed" or held:
            for key in event.get("patch", {}).get("new_keys", []):
                yield (key["key_name"], key.get("semantic_description", ""), event.get("line"),
                       key.get("key_type"))


def line_texts(events_path):
    """The `other` fragment of each line of the events file, by line number."""
    texts = {}
    if os.path.exists(events_path):
        for number, line in enumerate(open(events_path), start=1):
            other = json.loads(line)["message"]["payload"].get("other")
            if isinstance(other, str):
                texts[number] = other
    return texts


def quoted_intent(quote, intent_of):
    """The intent a quote comes from: the text it equals or, as a quote is
    the clause of a text that holds the key's words, the texts it is part
    of when they all share one intent."""
    q = normal(quote)
    if q in intent_of:
        return intent_of[q]
    q = q.rstrip(".!?,;: ").lower()
    found = {i for text, i in intent_of.items() if q and q in text.lower()}
    return found.pop() if len(found) == 1 else None


def score(truth, lines, texts=None):
    """Credits each key to the intent most of its quoted examples come from;
    a key quoting none (no text was sent by enough clients to be quoted) to
    the intent of the fragment whose request opened its need's gate (the
    proposal's `line` in `texts`)."""
    needs = truth["needs"]
    intent_of = truth["intent_of"]
    texts = texts or {}
    credited = Counter()
    named = Counter()
    booleans = 0
    noise = []
    for name, description, line, key_type in keys(lines):
        example = re.split(r"[Ff]or example", description, maxsplit=1)
        quoted = re.findall(r'"([^"]*)"', example[1]) if len(example) == 2 else []
        votes = Counter(quoted_intent(q, intent_of) for q in quoted)
        votes.pop(None, None)
        intent = votes.most_common(1)[0][0] if votes else None
        if intent is None and line in texts:
            intent = intent_of.get(normal(texts[line]))
        if intent in needs:
            credited[intent] += 1
            named[intent] += named_after(name, intent)
            booleans += key_type == "boolean"
        else:
            noise.append(name)
    used = labels_used(needs, intent_of)
    return {
        "needs": len(needs),
        "exactly_one_key": sum(1 for n in needs if credited[n] == 1),
        "with_a_key": sum(1 for n in needs if credited[n] >= 1),
        "extra_keys": sum(max(0, credited[n] - 1) for n in needs),
        "noise_keys": len(noise),
        "missed": [n for n in needs if credited[n] == 0],
        "named_after_the_need": sum(1 for n in needs if named[n] >= 1),
        "boolean_keys": booleans,
        # Needs whose label the requests themselves use (`labels_used`), and
        # of those, the ones with a key named after them.
        "labels_used": len(used),
        "named_where_label_used": sum(1 for n in used if named[n] >= 1),
    }


LABEL_USED = 0.2


def uses_label(text, intent):
    """Whether a request holds a word that shares a stem with the intent's label."""
    return any(named_after(w, intent) for w in re.split(r"[^a-z0-9]+", text.lower()) if w)


def labels_used(needs, intent_of):
    """The needs whose label (by `named_after`) shares a stem with a word of
    at least `LABEL_USED` of the distinct texts sent for them: the needs a
    namer drawing its words from the requests could name after their label."""
    texts = defaultdict(list)
    for text, intent in intent_of.items():
        texts[intent].append(text)
    return [n for n in needs
            if texts[n] and sum(uses_label(t, n) for t in texts[n]) >= LABEL_USED * len(texts[n])]


def named_after(key_name, intent):
    """Whether a key name shares a word stem with the intent's label (what a
    person calls the need): equal words, or words of 4+ letters sharing
    their first five (or all of the shorter one's, when it has 4):
    accept/acceptance, arrive/arrival, rates/rate."""
    def stems(text):
        return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]
    for a in stems(key_name):
        for b in stems(intent):
            short = min(len(a), len(b))
            if a == b or (short >= 5 and a[:5] == b[:5]) or (short == 4 and a[:4] == b[:4]):
                return True
    return False


def label_words(corpus, data, split, seeds_, shares=(0.05, 0.1, 0.2, 0.3)):
    """What bounds "named after the need" for a namer that draws its words
    from the requests: of the streams' needs, how many have a label a word
    of which (by `named_after`) is in at least each share of the intent's
    utterances. A label no request uses ("general_praise" for "good job,
    thanks") cannot be matched by such a namer, however good."""
    by_intent = split_texts(corpus, data, split)
    share = {}
    for intent, texts in by_intent.items():
        hits = sum(uses_label(t, intent) for t in texts)
        share[intent] = hits / len(texts)
    chosen = [i for seed in seeds_ for i in random.Random(seed).sample(sorted(by_intent), 8)]  # as `generate`
    return {"corpus": corpus, "split": split, "needs": len(chosen),
            "label_word_in_at_least": {f"{p:.0%}": sum(share[i] >= p for i in chosen) for p in shares},
            "rarely_used_labels": sorted(i for i in set(chosen) if share[i] < LABEL_USED)}


def evolve(sdsi, run_dir, model, need_threshold=None, need_contrast=None, llm=None, lending=None):
    command = [sdsi, "evolve", "--schema", os.path.join(run_dir, "template.json"),
               os.path.join(run_dir, "events.jsonl")]
    if llm:
        url, name = llm
        command += ["--inducer", "llm", "--llm-url", url, "--llm-model", name, "--llm-format", "json-object"]
    if model:
        command += ["--model", model]
    if need_threshold is not None:
        command += ["--need-threshold", str(need_threshold)]
    if need_contrast is not None:
        command += ["--need-contrast", str(need_contrast)]
    if lending:
        command += ["--lending", lending]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"sdsi evolve failed ({done.returncode}): {done.stderr or done.stdout[-2000:]}")
    return done.stdout.splitlines()


def seeds(text):
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--corpus", choices=["banking77", "hwu64"], required=True)
    g.add_argument("--data", required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--split", choices=["held-out", "calibration"], default="held-out")
    g.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("truth")
    s.add_argument("output", help="what `sdsi evolve` printed")
    b = sub.add_parser("label-words", help="how many needs' labels the requests themselves use")
    b.add_argument("--banking77")
    b.add_argument("--hwu64")
    b.add_argument("--seeds", default="1-6")
    b.add_argument("--split", choices=["held-out", "calibration"], default="held-out")
    r = sub.add_parser("run")
    r.add_argument("--banking77")
    r.add_argument("--hwu64")
    r.add_argument("--model")
    r.add_argument("--seeds", default="1-5")
    r.add_argument("--split", choices=["held-out", "calibration"], default="held-out")
    r.add_argument("--need-threshold", type=float, help="passed to sdsi evolve (default: the embedder's)")
    r.add_argument("--need-contrast", type=float, help="passed to sdsi evolve (default: the embedder's)")
    r.add_argument("--lending", choices=["silence", "book"], help="passed to sdsi evolve (default: the embedder's)")
    r.add_argument("--llm-url", help="induce with the LLM at this OpenAI-compatible API base (…/v1)")
    r.add_argument("--llm-model", default="smollm2", help="the model name the endpoint serves")
    r.add_argument("--sdsi", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "sdsi"))
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.corpus, args.data, args.seed, args.out, args.split)
    elif args.command == "label-words":
        for corpus, data in (("banking77", args.banking77), ("hwu64", args.hwu64)):
            if data:
                print(json.dumps(label_words(corpus, data, args.split, seeds(args.seeds))))
    elif args.command == "score":
        texts = line_texts(os.path.join(os.path.dirname(args.truth), "events.jsonl"))
        result = score(json.load(open(args.truth)), open(args.output), texts)
        print(json.dumps(result))
    else:
        rows = []
        for corpus, data in (("banking77", args.banking77), ("hwu64", args.hwu64)):
            if not data:
                continue
            for seed in seeds(args.seeds):
                with tempfile.TemporaryDirectory() as tmp:
                    generate(corpus, data, seed, tmp, args.split)
                    result = score(json.load(open(os.path.join(tmp, "truth.json"))), evolve(args.sdsi, tmp, args.model, args.need_threshold, args.need_contrast,
                                                  (args.llm_url, args.llm_model) if args.llm_url else None, args.lending),
                                   line_texts(os.path.join(tmp, "events.jsonl")))
                rows.append((corpus, seed, result))
                print(json.dumps({"corpus": corpus, "seed": seed, **result}), flush=True)
        print("\n| corpus | seed | needs with exactly one key | extra keys | keys from noise "
              "| needs with a key named after them | boolean keys |")
        print("|---|---|---|---|---|---|---|")
        for corpus, seed, r in rows:
            print(f"| {corpus} | {seed} | {r['exactly_one_key']} of {r['needs']} | {r['extra_keys']} "
                  f"| {r['noise_keys']} | {r['named_after_the_need']} | {r['boolean_keys']} |")
        for corpus in sorted({c for c, _, _ in rows}):
            mine = [r for c, _, r in rows if c == corpus]
            total = sum(r["exactly_one_key"] for r in mine)
            print(f"| {corpus} | all | {total} of {sum(r['needs'] for r in mine)} "
                  f"| {sum(r['extra_keys'] for r in mine)} | {sum(r['noise_keys'] for r in mine)} "
                  f"| {sum(r['named_after_the_need'] for r in mine)} | {sum(r['boolean_keys'] for r in mine)} |")


if __name__ == "__main__":
    main()
