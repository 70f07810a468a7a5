-- The state of each scenario (the schema store and the evolution engine,
-- as SavedServer bytes) and what an application keeps beside it.
-- IF NOT EXISTS: files made before migrations were numbered hold these
-- tables already.
CREATE TABLE IF NOT EXISTS sdsi_state (
    scenario TEXT PRIMARY KEY NOT NULL,
    version  INTEGER NOT NULL,
    state    BLOB NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS sdsi_attachment (
    scenario TEXT NOT NULL,
    name     TEXT NOT NULL,
    bytes    BLOB NOT NULL,
    PRIMARY KEY (scenario, name)
) STRICT;
