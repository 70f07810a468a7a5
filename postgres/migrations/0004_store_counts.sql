-- The store's counters as rows (sdsi::patch::CountRow, AdoptionRow): one
-- row per key (or scope total), metric and UTC day, moved in place by what
-- a fold counted (count = count + n), and per key and client the days it
-- was first told of the key and last sent it. Written with the store's
-- other rows; with pools as rows, sdsi_state's header leaves them out and
-- a load reads them from here.
-- sdsi_rows_written: a random token each save writes with the rows, so that
-- a connection trusts what it knows of them only if they are still the
-- ones it wrote or read (a version number can come back after a restore).
CREATE TABLE sdsi_rows_written (
    scenario   TEXT PRIMARY KEY,
    written_by TEXT NOT NULL
);
CREATE TABLE sdsi_key_count (
    scenario TEXT NOT NULL,
    scope    TEXT NOT NULL,
    key_name TEXT NOT NULL,
    metric   TEXT NOT NULL,
    day      BIGINT NOT NULL,
    count    BIGINT NOT NULL,
    PRIMARY KEY (scenario, scope, key_name, metric, day)
);
CREATE TABLE sdsi_adoption (
    scenario      TEXT NOT NULL,
    scope         TEXT NOT NULL,
    key_name      TEXT NOT NULL,
    client        TEXT NOT NULL,
    delivered_day BIGINT,
    adopted_day   BIGINT,
    PRIMARY KEY (scenario, scope, key_name, client)
);
