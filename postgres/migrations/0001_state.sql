-- The state of each scenario (the schema store and the evolution engine,
-- as SavedServer bytes) and what an application keeps beside it.
-- IF NOT EXISTS: databases made before migrations were numbered hold these
-- tables already.
CREATE TABLE IF NOT EXISTS sdsi_state (
    scenario TEXT PRIMARY KEY,
    version  BIGINT NOT NULL CHECK (version > 0),
    state    BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS sdsi_attachment (
    scenario TEXT NOT NULL,
    name     TEXT NOT NULL,
    bytes    BYTEA NOT NULL,
    PRIMARY KEY (scenario, name)
);
