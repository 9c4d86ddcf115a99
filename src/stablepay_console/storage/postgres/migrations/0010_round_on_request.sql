-- The team record, version 10: a request's row carries its current round's number and issue time beside its
-- deadline, so what is due and the service levels are read from the request rows alone.
--
-- Run by `record init` as the owner, in one transaction. What changes:
-- - `stablepay.rfis` gains `round_no` and `round_issued_at`, kept by the database from the request's current
--   round (`round_row`) as its deadline already is (migration 2): `rfis due` and the service levels it reckons
--   read the open rounds without joining every round the watcher ever saw;
-- - the rows already there are filled in from their rounds.
-- Nothing a person wrote changes, and no audit entry is written.
-- A file that shipped is never edited: a change is the next numbered file.

ALTER TABLE stablepay.rfis ADD COLUMN round_no integer, ADD COLUMN round_issued_at text;

CREATE OR REPLACE FUNCTION stablepay.rfi_deadline() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    SELECT ro.expires_at, ro.round_no, ro.issued_at INTO NEW.deadline, NEW.round_no, NEW.round_issued_at
    FROM stablepay.rounds ro WHERE ro.id = NEW.round_row;
    IF NOT FOUND THEN
        NEW.deadline := NULL;
        NEW.round_no := NULL;
        NEW.round_issued_at := NULL;
    END IF;
    RETURN NEW;
END $$;

-- The rows already there, filled in from their current rounds. Only these two columns change: the request's own
-- triggers (who wrote a fact, what moved) stay out of it, as no fact is written.
ALTER TABLE stablepay.rfis DISABLE TRIGGER USER;
UPDATE stablepay.rfis r SET round_no = ro.round_no, round_issued_at = ro.issued_at
FROM stablepay.rounds ro WHERE ro.id = r.round_row;
ALTER TABLE stablepay.rfis ENABLE TRIGGER USER;
