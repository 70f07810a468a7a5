-- The store as rows (sdsi::patch::StoreRows): its patches, key records,
-- pending proposals and what each client was told of each key, each with the columns a query needs and its JSON body
-- (text, as written: cast to JSONB to query inside it). The evaluator
-- writes them from the state in the transaction that saves it, only where
-- a row changed; sdsi_state remains what a server restores from.
-- sdsi_rows_version names the state version the rows were written with: a
-- state saved as bytes alone, or by a release before these tables, leaves
-- it behind, and the rows are then not read as current.
-- pools_in_rows: the state's pools are kept in sdsi_cluster and sdsi_need
-- (sdsi::evolution::EngineRows), and sdsi_state holds their header only.
CREATE TABLE sdsi_rows_version (
    scenario      TEXT PRIMARY KEY,
    version       BIGINT NOT NULL,
    pools_in_rows BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE TABLE sdsi_patch (
    scenario TEXT NOT NULL,
    patch_id TEXT NOT NULL,
    client   TEXT,
    status   TEXT NOT NULL CHECK (status IN ('accepted', 'queued')),
    position BIGINT NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, patch_id)
);
CREATE TABLE sdsi_key_record (
    scenario TEXT NOT NULL,
    scope    TEXT NOT NULL,
    key_name TEXT NOT NULL,
    state    TEXT NOT NULL,
    patch_id TEXT NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, scope, key_name)
);
CREATE TABLE sdsi_pending (
    scenario TEXT NOT NULL,
    proposal TEXT NOT NULL,
    held_at  TIMESTAMPTZ NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, proposal)
);
CREATE TABLE sdsi_delivered (
    scenario TEXT NOT NULL,
    client   TEXT NOT NULL,
    key_name TEXT NOT NULL,
    tag      TEXT NOT NULL,
    PRIMARY KEY (scenario, client, key_name)
);
CREATE TABLE sdsi_cluster (
    scenario TEXT NOT NULL,
    pool     TEXT NOT NULL,
    id       TEXT NOT NULL,
    position BIGINT NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, pool, id)
);
CREATE TABLE sdsi_need (
    scenario TEXT NOT NULL,
    pool     TEXT NOT NULL,
    id       TEXT NOT NULL,
    position BIGINT NOT NULL,
    body     TEXT NOT NULL,
    PRIMARY KEY (scenario, pool, id)
);
