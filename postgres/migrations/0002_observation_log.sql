-- The observation log: replicas append what they observed (redacted
-- fragments and their vectors, client, time; no raw value), one row per
-- message id, so a retried append counts once. The evaluator folds rows
-- whose `folded` is false in time order, up to the replicas' low
-- watermark, and marks them folded in the transaction that saves the state
-- it folded them into.
CREATE TABLE sdsi_observation (
    scenario    TEXT NOT NULL,
    message_id  TEXT NOT NULL,
    seq         BIGSERIAL NOT NULL,
    replica     TEXT NOT NULL,
    embedder    TEXT NOT NULL,
    at_micros   BIGINT NOT NULL,
    observation BYTEA NOT NULL,
    folded      BOOLEAN NOT NULL DEFAULT FALSE,
    appended_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (scenario, message_id)
);
CREATE INDEX sdsi_observation_unfolded
    ON sdsi_observation (scenario, at_micros, seq) WHERE NOT folded;
CREATE INDEX sdsi_observation_folded_at
    ON sdsi_observation (scenario, at_micros) WHERE folded;

-- Each replica's progress: the newest message time it appended (it appends
-- in time order), whether it has finished, and when it was last heard of
-- (the server's clock). The evaluator folds no row newer than the oldest
-- progress of the replicas still running and heard of recently, so rows
-- are folded in time order whichever replica appended them first.
CREATE TABLE sdsi_replica (
    scenario         TEXT NOT NULL,
    replica          TEXT NOT NULL,
    appended_through BIGINT NOT NULL,
    finished         BOOLEAN NOT NULL DEFAULT FALSE,
    heard_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (scenario, replica)
);
