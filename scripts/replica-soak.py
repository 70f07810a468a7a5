#!/usr/bin/env python3
"""The replicas soak: three replicas, killed at random, against one process.

Runs `--replicas` (3) `sdsi evolve --state postgresql://… --replica rN -`
processes on a throwaway PostgreSQL server (run it under
scripts/with-postgres.sh) and plays a load balancer in front of them for
`--seconds`: the long stream of scripts/replicas.py (Banking77 bursts, one
per seed, two days apart; lines that share a second are moved a second
apart, see `untie`) is dealt line by line, in time order, paced to
last `--seconds`, each line to a live replica drawn at random. Meanwhile it
SIGKILLs a replica at random moments (on average every `--kill-every`
seconds; every other kill, on average, aims at the replica holding the
evaluator lock, waiting up to 3 s for its connection to be inside a
transaction that is not an append: reading the rows to fold or saving
the fold) and restarts it
under the same name after a random pause of up to `--restart-within`
seconds.

What a line's acknowledgement is: the CLI prints nothing per line, and a
line counts from the moment the replica's append commits (its id, the
SHA-256 of the line, is then in `sdsi_observation`): that is when a server
would answer its client. So the balancer polls the log for the ids of the
lines it sent and not yet saw acknowledged. After a kill it re-sends the
victim's lines that were not acknowledged (read in its batch, or still in
its pipe, or in an append the kill aborted), and also those acknowledged
less than `--ack-lag` seconds before the kill (an answer still on its way
when the replica died: appended, but the balancer cannot know it), either
all to the victim once it is back (sticky) or each to another live replica
(drawn per kill). A line appended twice must count once.

At the end every replica's input is closed; each folds what is left and
exits. The soak then compares with one clean `sdsi evolve --state
clean.sqlite` over the same file:

- every line folded exactly once (a trigger the soak adds to the throwaway
  database records each row of `sdsi_observation` marked folded, so the
  folds of killed processes count too), no unfolded row left;
- the store's counters (`sdsi_key_count`: messages, present, well-typed
  per key, scope and day), its keys (`sdsi_key_record`) and held proposals
  (`sdsi_pending`), PostgreSQL's against the SQLite file's;
- the keys the replicas printed as proposed or held (a replica killed
  between a save and its printing loses those events: told apart);
- no `error` event, and every replica still running at the end exits 0.

It prints a JSON line of figures and exits 1 on any mismatch (the details
on stderr). `--seed` fixes every draw, each kind from its own generator:
the moments of the kills and their victims, the replica each line goes
to, the pauses and where a victim's lines go. What a draw applies to
depends on timing (which replicas are up, which statement a kill lands
in), so two runs with one seed are alike, not identical.

    bash scripts/with-postgres.sh python3 scripts/replica-soak.py \\
        --sdsi target/release/sdsi --banking77 ../shared/data/banking77 \\
        --seconds 120 --seed 1
"""
import argparse
import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bursts  # noqa: E402
import replicas  # noqa: E402

END = "__soak_end__"


class Psql:
    """One psql session kept open: a query costs a round trip, not a process."""

    def __init__(self, conn):
        self.proc = subprocess.Popen(
            ["psql", conn, "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def rows(self, sql):
        self.proc.stdin.write(sql.strip().rstrip(";") + f";\n\\echo {END}\n")
        self.proc.stdin.flush()
        out = []
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line == END:
                return out
            if line:
                out.append(line.split("|"))
        raise RuntimeError("psql ended")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def message_id(line):
    """The CLI's message id (cli/src/commands/evolve/replica.rs)."""
    return hashlib.sha256(line.strip().encode()).hexdigest()


class Replica:
    """One process of a named replica, and the lines the balancer sent it."""

    def __init__(self, sdsi, template, url, name, log):
        self.name = name
        self.proc = subprocess.Popen(
            [sdsi, "evolve", "--schema", template, "--state", f"{url}&application_name={name}",
             "--replica", name, "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.pending = {}  # id -> line: sent, not acknowledged
        self.acked = {}  # id -> (line, when acknowledged), recent acknowledgements only
        self.output = []
        log.append(self.output)
        self.reader = threading.Thread(target=self.drain)
        self.reader.start()

    def drain(self):
        for line in self.proc.stdout:
            self.output.append(line.decode(errors="replace"))

    def send(self, line):
        """False when the process is gone (it died by itself)."""
        try:
            self.proc.stdin.write(line.encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return False
        self.pending[message_id(line)] = line
        return True


def in_log(db, ids):
    found = set()
    ids = list(ids)
    for start in range(0, len(ids), 500):
        chunk = ",".join(f"'{i}'" for i in ids[start:start + 500])
        found |= {r[0] for r in db.rows(f"SELECT message_id FROM sdsi_observation WHERE message_id IN ({chunk})")}
    return found


def acknowledge(db, live, now, lag):
    ids = [i for r in live.values() for i in r.pending]
    if not ids:
        return
    found = in_log(db, ids)
    for r in live.values():
        for i in [i for i in r.pending if i in found]:
            r.acked[i] = (r.pending.pop(i), now)
        for i in [i for i, (_, at) in r.acked.items() if at < now - 2 * lag]:
            del r.acked[i]


FOLD_HOLDER = """
SELECT a.application_name, a.pid, (a.xact_start IS NOT NULL),
       left(regexp_replace(a.query, '\s+', ' ', 'g'), 40)
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()
  -- not the lock a connecting replica migrates under (postgres/src/migrate.rs)
  AND l.objid <> (hashtext('sdsi_migration')::BIGINT & 4294967295)::OID
"""


def in_fold(row):
    """The holder's connection inside a transaction that is not an append:
    reading the rows to fold (`PgState::unfolded`) or saving the fold
    (`PgState::save_folded`)."""
    _, _, xact, query = row
    return xact == "t" and not query.lstrip().startswith(("INSERT INTO sdsi_observation",
                                                          "INSERT INTO sdsi_replica",
                                                          "START TRANSACTION", "BEGIN"))


def untie(lines, path):
    """The stream with each line a second after the one before when they
    shared a timestamp: same-second messages have no order of their own
    (docs/replicas.md, "Time order"), so with ties replicas may fold them
    in another order than the file's and propose another borderline key
    without any kill. Untied, a difference is the soak's to explain."""
    out, last, moved = [], None, 0
    for line in lines:
        event = json.loads(line)
        at = datetime.strptime(event["at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        if last is not None and at <= last:
            at, moved = last + timedelta(seconds=1), moved + 1
            event["at"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
            line = json.dumps(event) + "\n"
        out.append(line)
        last = at
    with open(path, "w") as f:
        f.writelines(out)
    return out, moved


def outputs_events(outputs):
    """Whole JSON lines of every process, and how many lines a kill cut."""
    events, cut = [], 0
    for output in outputs:
        for line in output:
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                cut += 1
    return events, cut


def printed_keys(events):
    return sorted((e["event"], k["key_name"]) for e in events if e.get("event") in ("proposed", "held")
                  for k in e["patch"]["new_keys"])


def store_tables(query):
    """The store's rows that must match: keys, held proposals, counters."""
    return {
        "keys": sorted(tuple(map(str, r)) for r in query(
            "SELECT scope, key_name, state FROM sdsi_key_record")),
        "pending": len(query("SELECT proposal FROM sdsi_pending")),
        "counts": sorted(tuple(map(str, r)) for r in query(
            "SELECT scope, key_name, metric, day, count FROM sdsi_key_count")),
    }


def messages_counted(counts):
    return sum(int(c) for scope, key, metric, _, c in counts
               if scope == "global" and key == "" and metric == "messages")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sdsi", required=True)
    parser.add_argument("--banking77", required=True)
    parser.add_argument("--seeds", default="1-8")
    parser.add_argument("--seconds", type=float, default=120, help="how long the stream is dealt")
    parser.add_argument("--seed", type=int, default=1, help="deals, kills and pauses")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--kill-every", type=float, default=6,
                        help="mean seconds between kills (0: no kill)")
    parser.add_argument("--restart-within", type=float, default=2)
    parser.add_argument("--ack-lag", type=float, default=0.5,
                        help="acknowledgements this recent are taken as lost with the replica")
    parser.add_argument("--finish-within", type=float, default=180,
                        help="seconds the replicas have to finish once their input ends")
    args = parser.parse_args()
    # One generator per kind of draw, so one kind's count does not shift another's.
    deal_rng, kill_rng, restart_rng = (random.Random(f"{args.seed}-{kind}")
                                       for kind in ("deal", "kill", "restart"))
    params = replicas.server()
    conn = f"host={params['host']} port={params['port']} user={params['user']} dbname=sdsi_soak"
    figures = {"seed": args.seed, "seconds": args.seconds, "seeds": args.seeds}
    with tempfile.TemporaryDirectory() as tmp:
        _, template, lines = replicas.long_stream("banking77", args.banking77, bursts.seeds(args.seeds), tmp)
        events_path = os.path.join(tmp, "untied.jsonl")
        lines, figures["retimed_ties"] = untie(lines, events_path)
        figures["lines"] = len(lines)
        clean_db = os.path.join(tmp, "clean.sqlite")
        clean = subprocess.run([args.sdsi, "evolve", "--schema", template, "--state", clean_db, events_path],
                               capture_output=True, text=True)
        clean_events = [json.loads(line) for line in clean.stdout.splitlines()]
        with sqlite3.connect(clean_db) as c:
            expected = store_tables(lambda sql: c.execute(sql).fetchall())

        url = replicas.fresh_url(params, "sdsi_soak")
        # The tables exist once a replica has connected: one with no input.
        subprocess.run([args.sdsi, "evolve", "--schema", template, "--state", url, "--replica", "soak-setup", "-"],
                       stdin=subprocess.DEVNULL, capture_output=True, check=True)
        db = Psql(conn)
        db.rows("CREATE TABLE soak_folded (message_id TEXT NOT NULL)")
        db.rows("""CREATE FUNCTION soak_folded() RETURNS trigger LANGUAGE plpgsql AS
                   $$ BEGIN INSERT INTO soak_folded VALUES (NEW.message_id); RETURN NEW; END $$""")
        db.rows("""CREATE TRIGGER soak_folded AFTER UPDATE OF folded ON sdsi_observation
                   FOR EACH ROW WHEN (NOT OLD.folded AND NEW.folded) EXECUTE FUNCTION soak_folded()""")

        outputs = []
        names = [f"r{i}" for i in range(args.replicas)]
        live = {n: Replica(args.sdsi, template, url, n, outputs) for n in names}
        finished = []  # processes that ended by themselves or were waited for
        down = {}  # name -> (restart time, lines held for it)
        stats = Counter()
        kills = []
        start = time.monotonic()
        next_kill = start + (kill_rng.expovariate(1 / args.kill_every) if args.kill_every else float("inf"))
        next_ack = start
        aim = None  # while aiming at the evaluator: until when
        sent = 0

        def deal(line):
            while True:
                name = deal_rng.choice(sorted(live))
                if live[name].send(line):
                    return
                died(name)

        def died(name):
            """A replica gone by itself: a failure, handled as a kill."""
            stats["unexpected_exits"] += 1
            replica = live.pop(name)
            replica.proc.wait()
            finished.append(replica)
            lose(replica, time.monotonic(), sticky=False)

        def lose(replica, now, sticky):
            """After `replica` died: what to send again, and to whom."""
            # Let the server see the connection close (an append's commit
            # already sent still lands), then ask the log once more.
            for _ in range(200):
                if not db.rows(f"SELECT 1 FROM pg_stat_activity WHERE application_name = '{replica.name}'"):
                    break
                time.sleep(0.01)
            found = in_log(db, replica.pending)
            late = [line for i, line in replica.pending.items() if i in found]
            lost = [line for i, line in replica.pending.items() if i not in found]
            recent = [line for line, at in replica.acked.values() if at >= now - args.ack_lag]
            again = sorted(lost + late + recent, key=lambda l: json.loads(l)["at"])
            stats["resent_lines"] += len(again)
            stats["resent_not_appended"] += len(lost)
            stats["resent_already_appended"] += len(late) + len(recent)
            held = []
            if sticky:
                held = again
            else:
                for line in again:
                    deal(line)
            down[replica.name] = (now + restart_rng.uniform(0, args.restart_within), held)

        def kill(victim, phase):
            replica = live.pop(victim)
            holder = [r[0] for r in db.rows(FOLD_HOLDER)]
            os.kill(replica.proc.pid, signal.SIGKILL)
            replica.proc.wait()
            finished.append(replica)
            kills.append({"at": round(time.monotonic() - start, 2), "replica": victim,
                          "evaluator": victim in holder, "in_fold": phase})
            lose(replica, time.monotonic(), sticky=restart_rng.random() < 0.5)

        # Deal the stream, paced to last --seconds, with the kills.
        while sent < len(lines) or down or aim is not None:
            now = time.monotonic()
            due = min(len(lines), int((now - start) / args.seconds * len(lines)) + 1)
            while sent < due:
                deal(lines[sent])
                sent += 1
            if now >= next_ack:
                acknowledge(db, live, now, args.ack_lag)
                next_ack = now + 0.2
            for name, (at, held) in sorted(down.items()):
                if now >= at:
                    del down[name]
                    live[name] = Replica(args.sdsi, template, url, name, outputs)
                    stats["restarts"] += 1
                    for line in held:
                        if not live[name].send(line):
                            died(name)
                            deal(line)
            if aim is None and now >= next_kill:
                if now - start < args.seconds and len(live) >= 2:
                    if kill_rng.random() < 0.5:
                        # At the evaluator, within 3 s, inside a fold if it can.
                        aim = now + 3
                    else:
                        kill(kill_rng.choice(sorted(live)), None)
                next_kill = time.monotonic() + kill_rng.expovariate(1 / args.kill_every)
            if aim is not None:
                holders = [r for r in db.rows(FOLD_HOLDER) if r[0] in live]
                if holders and in_fold(holders[0]):
                    aim = None
                    kill(holders[0][0], " ".join(holders[0][3].split()[:3]))
                elif now >= aim:
                    aim = None
                    if len(live) >= 2:
                        kill(holders[0][0] if holders else kill_rng.choice(sorted(live)), None)
                if aim is None:
                    next_kill = time.monotonic() + kill_rng.expovariate(1 / args.kill_every)
                time.sleep(0.001)
                continue
            time.sleep(0.01)
        dealt = time.monotonic() - start

        # The end of the stream: every replica folds what is left and exits.
        for replica in live.values():
            replica.proc.stdin.close()
        deadline = time.monotonic() + args.finish_within
        statuses = {}
        for name, replica in live.items():
            try:
                statuses[name] = replica.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                replica.proc.kill()
                statuses[name] = "timeout"
                replica.proc.wait()
        for replica in list(live.values()) + finished:
            replica.reader.join()
        finish_seconds = time.monotonic() - start - dealt

        folded = Counter(r[0] for r in db.rows("SELECT message_id FROM soak_folded"))
        unfolded = int(db.rows("SELECT COUNT(*) FROM sdsi_observation WHERE NOT folded")[0][0])
        got = store_tables(db.rows)
        db.close()
        ids = Counter(message_id(line) for line in lines)
        events, cut = outputs_events(outputs)
        errors = [e for e in events if e.get("event") == "error"]
        summaries = [e for e in events if e.get("event") == "summary"]

        clean_keys = printed_keys(clean_events)
        soak_keys = printed_keys(events)
        figures.update({
            "dealt_seconds": round(dealt, 1),
            "finish_seconds": round(finish_seconds, 1),
            "kills": len(kills),
            "kills_of_evaluator": sum(k["evaluator"] for k in kills),
            "kills_in_fold": sum(bool(k["in_fold"]) for k in kills),
            "kills_in_fold_by_statement": dict(Counter(k["in_fold"] for k in kills if k["in_fold"])),
            "restarts": stats["restarts"],
            "resent_lines": stats["resent_lines"],
            "resent_not_appended": stats["resent_not_appended"],
            "resent_already_appended": stats["resent_already_appended"],
            "unexpected_exits": stats["unexpected_exits"],
            "final_exit_statuses": statuses,
            "folded_lines": sum(folded.values()),
            "folded_twice": sum(1 for n in folded.values() if n > 1),
            "lost_lines": sum(1 for i in ids if i not in folded),
            "unfolded_left": unfolded,
            "messages_counted": messages_counted(got["counts"]),
            "clean_messages_counted": messages_counted(expected["counts"]),
            "count_rows_differing": len(set(got["counts"]) ^ set(expected["counts"])),
            "keys": got["keys"],
            "keys_match": got["keys"] == expected["keys"],
            "pending": got["pending"],
            "pending_match": got["pending"] == expected["pending"],
            "printed_keys_match": soak_keys == clean_keys,
            "error_events": len(errors) + sum(1 for e in clean_events if e.get("event") == "error"),
            "cut_output_lines": cut,
            "already_logged_in_final_summaries": sum(s.get("already_logged", 0) for s in summaries),
        })
        mismatches = []
        if sum(folded.values()) != len(ids) or figures["folded_twice"] or figures["lost_lines"]:
            mismatches.append("folded lines")
        if unfolded:
            mismatches.append("unfolded rows left")
        if not figures["keys_match"] or not figures["pending_match"]:
            mismatches.append("store keys")
        if figures["count_rows_differing"]:
            mismatches.append("store counts")
        if errors or figures["error_events"] or clean.returncode != 0:
            mismatches.append("error events")
        if any(s != 0 for s in statuses.values()) or stats["unexpected_exits"]:
            mismatches.append("exit statuses")
        if not figures["printed_keys_match"]:
            # Events printed after a save are lost with a replica killed
            # between the two; only a key printed that the clean process
            # did not print is a mismatch.
            extra = Counter(soak_keys) - Counter(clean_keys)
            missing = Counter(clean_keys) - Counter(soak_keys)
            figures["printed_keys_extra"] = sorted(extra.elements())
            figures["printed_keys_missing"] = sorted(missing.elements())
            if extra:
                mismatches.append("printed keys")
        figures["mismatches"] = len(mismatches)
        figures["mismatched"] = mismatches
        if mismatches:
            detail = {
                "clean_keys": expected["keys"],
                "counts_only_soak": sorted(set(got["counts"]) - set(expected["counts"]))[:20],
                "counts_only_clean": sorted(set(expected["counts"]) - set(got["counts"]))[:20],
                "folded_twice_ids": [i for i, n in folded.items() if n > 1][:20],
                "errors": errors[:10],
                "kills": kills,
            }
            print(json.dumps(detail), file=sys.stderr)
        print(json.dumps(figures))
        return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
