-- The store as rows (sdsi::patch::StoreRows): its patches, key records,
-- pending proposals and what each client was told of each key, each with the columns a query needs and its JSON body.
-- Written from the state in the transaction that saves it, only where a
-- row changed; the state in sdsi_state remains what a server restores from.
-- sdsi_rows_version names the state version the rows were written with: a
-- state saved as bytes alone, or by a release before these tables, leaves
-- it behind, and the rows are then not read as current.
-- IF NOT EXISTS: the migrations are idempotent.
-- pools_in_rows: the state's pools are kept in sdsi_cluster and sdsi_need
-- (sdsi::evolution::EngineRows), and sdsi_state holds their header only.
CREATE TABLE IF NOT EXISTS sdsi_rows_version (
    scenario      TEXT PRIMARY KEY NOT NULL,
    version       INTEGER NOT NULL,
    pools_in_rows INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_patch (
    scenario TEXT NOT NULL,
    patch_id TEXT NOT NULL,
    client   TEXT,
    status   TEXT NOT NULL CHECK (status IN ('accepted', 'queued')),
    position INTEGER NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, patch_id)
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_key_record (
    scenario TEXT NOT NULL,
    scope    TEXT NOT NULL,
    key_name TEXT NOT NULL,
    state    TEXT NOT NULL,
    patch_id TEXT NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, scope, key_name)
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_pending (
    scenario TEXT NOT NULL,
    proposal TEXT NOT NULL,
    held_at  TEXT NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, proposal)
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_delivered (
    scenario TEXT NOT NULL,
    client   TEXT NOT NULL,
    key_name TEXT NOT NULL,
    tag      TEXT NOT NULL,
    PRIMARY KEY (scenario, client, key_name)
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_cluster (
    scenario TEXT NOT NULL,
    pool     TEXT NOT NULL,
    id       TEXT NOT NULL,
    position INTEGER NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, pool, id)
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_need (
    scenario TEXT NOT NULL,
    pool     TEXT NOT NULL,
    id       TEXT NOT NULL,
    position INTEGER NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, pool, id)
) STRICT;
