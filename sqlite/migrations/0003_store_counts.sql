-- The store's counters as rows (sdsi::patch::CountRow, AdoptionRow): one
-- row per key (or scope total), metric and UTC day, moved in place by what
-- a save counted (count = count + n), and per key and client the days it
-- was first told of the key and last sent it. Written with the store's
-- other rows; with pools as rows, sdsi_state's header leaves them out and
-- a load reads them from here.
-- IF NOT EXISTS: the migrations are idempotent.
-- sdsi_rows_written: a random token each save writes with the rows, so that
-- a connection trusts what it knows of them only if they are still the
-- ones it wrote or read (a version number can come back after a restore).
CREATE TABLE IF NOT EXISTS sdsi_rows_written (
    scenario   TEXT PRIMARY KEY NOT NULL,
    written_by TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_key_count (
    scenario TEXT NOT NULL,
    scope    TEXT NOT NULL,
    key_name TEXT NOT NULL,
    metric   TEXT NOT NULL,
    day      INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (scenario, scope, key_name, metric, day)
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_adoption (
    scenario      TEXT NOT NULL,
    scope         TEXT NOT NULL,
    key_name      TEXT NOT NULL,
    client        TEXT NOT NULL,
    delivered_day INTEGER,
    adopted_day   INTEGER,
    PRIMARY KEY (scenario, scope, key_name, client)
) STRICT;
