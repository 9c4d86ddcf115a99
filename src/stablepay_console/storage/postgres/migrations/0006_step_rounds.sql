-- The team record, version 6: a step belongs to the round it was taken in, whether or not the watcher had seen it.
--
-- Run by `record init` as the owner, in one transaction. Up to version 5 a step took its round from the watcher's
-- sighting of the request; before the watcher's first sweep there was none, the step kept no round, and once the
-- watcher recorded round 1 such steps no longer counted: an approved answer read as "claimed". What changes:
-- - a console may say which round it showed (`round_no`, and `round_id`, the API's round ID). The database checks
--   it: where the watcher has seen the request, the round must be the one it saw (an older one is refused: the
--   console shows a round that is over; a newer one is refused until the watcher's sweep records it); where it has
--   not, every step of the request must name the same round as the first one that named one. So a member cannot
--   move a request to another round by typing a number: only the watcher's sighting of the API opens a round,
--   and an approved answer is never re-opened or hidden by what a member types. A console that says nothing
--   (the shell) gets the round the record knows, as before;
-- - a step that still names no round belongs to the latest round the watcher saw issued at or before the step
--   (`stablepay.round_at`); until the watcher has seen the request at all, every step of it counts. The watcher's
--   first sight of a round therefore changes nothing a person did;
-- - steps kept with no round are given theirs here, from the time of their own audit entry, and each repair is
--   kept in `stablepay.round_repairs` (what `record status` reports). No audit entry is changed.
-- Who and when stay the database's. A file that shipped is never edited: a change is the next numbered file.

ALTER TABLE stablepay.triage ADD COLUMN round_id text CHECK (round_id IS NULL OR length(round_id) <= 100);
ALTER TABLE stablepay.triage ADD CONSTRAINT triage_round_no_range CHECK (round_no IS NULL OR round_no BETWEEN 1 AND 100000);

-- The round the watcher saw current at `at_time`: the latest it saw issued at or before then (an imported round
-- counts for nothing, as everywhere in the team's views).
CREATE FUNCTION stablepay.round_at(at_server text, at_rfi text, at_time timestamptz) RETURNS integer LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp AS $$
    SELECT ro.round_no FROM stablepay.rounds ro
    WHERE ro.server = at_server AND ro.rfi_id = at_rfi AND ro.imported_by IS NULL
      AND ro.issued_at ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d' AND ro.issued_at::timestamptz <= at_time
    ORDER BY ro.issued_at::timestamptz DESC, ro.id DESC LIMIT 1
$$;

-- Whether a step (its round as kept, and its time) counts for where the request stands now: every step until the
-- watcher has seen the request; then those of the round it saw last.
CREATE FUNCTION stablepay.counts_now(at_server text, at_rfi text, kept_round integer, kept_at timestamptz)
RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE WHEN r.rfi_id IS NULL THEN true
                ELSE coalesce(kept_round, stablepay.round_at(at_server, at_rfi, kept_at)) IS NOT DISTINCT FROM ro.round_no
           END
    FROM (SELECT 1) one
    LEFT JOIN stablepay.rfis r ON r.server = at_server AND r.rfi_id = at_rfi
    LEFT JOIN stablepay.rounds ro ON ro.id = r.round_row
$$;

CREATE OR REPLACE FUNCTION stablepay.step_at(at_server text, at_rfi text, before_id bigint) RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    seen_status text;
    holder      text;
    last_step   text;
BEGIN
    SELECT r.status INTO seen_status FROM stablepay.rfis r WHERE r.server = at_server AND r.rfi_id = at_rfi;
    IF seen_status IN ('submitted', 'resolved', 'expired') THEN
        RETURN seen_status;
    END IF;
    SELECT claimant INTO holder FROM stablepay.claims
    WHERE server = at_server AND rfi_id = at_rfi AND (until IS NULL OR until > now());
    SELECT t.step INTO last_step FROM stablepay.triage t
    WHERE t.server = at_server AND t.rfi_id = at_rfi AND t.id < before_id
      AND stablepay.counts_now(at_server, at_rfi, t.round_no, t.at)
    ORDER BY t.id DESC LIMIT 1;
    RETURN CASE last_step WHEN 'ready' THEN 'ready' WHEN 'approve' THEN 'approved' WHEN 'wait' THEN 'waiting'
           ELSE CASE WHEN holder IS NULL THEN 'unclaimed' ELSE 'claimed' END END;
END $$;

CREATE OR REPLACE FUNCTION stablepay.triage_check() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    seen          boolean;
    seen_round    integer;
    seen_round_id text;
    named_round   integer;
    named_id      text;
    holder        text;
    maker         text;
    at_step       text;
BEGIN
    NEW.actor := stablepay.person();
    NEW.at := clock_timestamp();
    PERFORM pg_advisory_xact_lock(hashtextextended(NEW.server || ' ' || NEW.rfi_id, 1397772371));
    SELECT true, ro.round_no, ro.round_id INTO seen, seen_round, seen_round_id
    FROM stablepay.rfis r LEFT JOIN stablepay.rounds ro ON ro.id = r.round_row
    WHERE r.server = NEW.server AND r.rfi_id = NEW.rfi_id;
    IF seen_round IS NOT NULL THEN
        -- the watcher saw the request's round: a step is taken in that one
        IF NEW.round_no IS NOT NULL AND NEW.round_no < seen_round THEN
            RAISE EXCEPTION '% is in round % now; the console showed round %: read it again', NEW.rfi_id, seen_round,
                NEW.round_no USING ERRCODE = 'check_violation';
        ELSIF NEW.round_no IS NOT NULL AND NEW.round_no > seen_round THEN
            RAISE EXCEPTION 'the team record has seen round % of %, not round % yet: the team watcher''s next sweep '
                'records it; take the step after it', seen_round, NEW.rfi_id, NEW.round_no
                USING ERRCODE = 'check_violation';
        ELSIF NEW.round_id IS NOT NULL AND NEW.round_id IS DISTINCT FROM seen_round_id THEN
            RAISE EXCEPTION 'round % of % is not the round the team record saw (another round ID): read it again',
                seen_round, NEW.rfi_id USING ERRCODE = 'check_violation';
        END IF;
        NEW.round_no := seen_round;
        NEW.round_id := seen_round_id;
    ELSIF seen IS NULL THEN
        -- never seen by the watcher: the first step that named a round names it for every later one
        SELECT t.round_no, t.round_id INTO named_round, named_id FROM stablepay.triage t
        WHERE t.server = NEW.server AND t.rfi_id = NEW.rfi_id AND t.round_no IS NOT NULL ORDER BY t.id LIMIT 1;
        IF named_round IS NOT NULL AND (NEW.round_no IS DISTINCT FROM named_round AND NEW.round_no IS NOT NULL
                                        OR NEW.round_id IS NOT NULL AND NEW.round_id IS DISTINCT FROM named_id) THEN
            RAISE EXCEPTION '% is in round % by the steps taken on it; the console showed round %: the team '
                'watcher''s next sweep says which round is current', NEW.rfi_id, named_round, NEW.round_no
                USING ERRCODE = 'check_violation';
        END IF;
        IF named_round IS NOT NULL THEN
            NEW.round_no := named_round;
            NEW.round_id := named_id;
        ELSIF NEW.round_no IS NULL THEN
            NEW.round_id := NULL;  -- an ID without its number says nothing
        END IF;
    ELSE
        -- seen, with no round open: as before, a step keeps no round
        NEW.round_no := NULL;
        NEW.round_id := NULL;
    END IF;
    at_step := stablepay.step_at(NEW.server, NEW.rfi_id, 9223372036854775807);
    IF at_step IN ('submitted', 'resolved', 'expired') THEN
        RAISE EXCEPTION '% is closed: the provider says it is %', NEW.rfi_id, at_step USING ERRCODE = 'check_violation';
    END IF;
    SELECT claimant INTO holder FROM stablepay.claims
    WHERE server = NEW.server AND rfi_id = NEW.rfi_id AND (until IS NULL OR until > now());
    IF NEW.step = 'ready' THEN
        IF at_step <> 'claimed' THEN
            RAISE EXCEPTION '% is %; ''ready'' needs it claimed', NEW.rfi_id, at_step USING ERRCODE = 'check_violation';
        END IF;
        IF holder IS DISTINCT FROM NEW.actor THEN
            RAISE EXCEPTION 'only the claimant makes an answer ready; % is claimed by %', NEW.rfi_id, holder
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    ELSIF NEW.step = 'approve' THEN
        IF at_step <> 'ready' THEN
            RAISE EXCEPTION '% is %; ''approve'' needs it ready', NEW.rfi_id, at_step USING ERRCODE = 'check_violation';
        END IF;
        SELECT t.actor INTO maker FROM stablepay.triage t
        WHERE t.server = NEW.server AND t.rfi_id = NEW.rfi_id AND t.step = 'ready'
          AND stablepay.counts_now(NEW.server, NEW.rfi_id, t.round_no, t.at)
        ORDER BY t.id DESC LIMIT 1;
        IF maker = NEW.actor THEN
            RAISE EXCEPTION 'four eyes: % made the answer ready and cannot approve it', NEW.actor
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    ELSIF NEW.step = 'reject' THEN
        IF at_step NOT IN ('ready', 'approved') THEN
            RAISE EXCEPTION '% is %; ''reject'' needs it ready or approved', NEW.rfi_id, at_step
                USING ERRCODE = 'check_violation';
        END IF;
        IF btrim(NEW.note) = '' THEN
            RAISE EXCEPTION 'a rejection needs a note saying why' USING ERRCODE = 'check_violation';
        END IF;
    ELSIF NEW.step = 'wait' THEN
        IF at_step NOT IN ('claimed', 'ready') THEN
            RAISE EXCEPTION '% is %; ''wait'' needs it claimed or ready', NEW.rfi_id, at_step
                USING ERRCODE = 'check_violation';
        END IF;
    ELSIF NEW.step = 'resume' THEN
        IF at_step <> 'waiting' THEN
            RAISE EXCEPTION '% is %; ''resume'' needs it waiting', NEW.rfi_id, at_step USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;

-- --- the steps kept with no round before this version: each given the round of its own audit entry's time ---------

CREATE TABLE stablepay.round_repairs (
    step_id     bigint PRIMARY KEY,
    rfi_id      text NOT NULL,
    server      text NOT NULL,
    round_no    integer,
    audit_seq   bigint,
    repaired_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE stablepay.round_repairs IS
    'Steps kept with no round up to schema 5, and the round schema 6 gave each (NULL: none could be told)';

INSERT INTO stablepay.round_repairs (step_id, rfi_id, server, round_no, audit_seq)
SELECT t.id, t.rfi_id, t.server, stablepay.round_at(t.server, t.rfi_id, coalesce(a.at::timestamptz, t.at)), a.seq
FROM stablepay.triage t
LEFT JOIN LATERAL (
    SELECT e.seq, e.at FROM stablepay.audit e
    WHERE e.action = 'triage.' || t.step AND e.target = t.rfi_id AND e.server = t.server AND e.actor = t.actor
      AND e.imported_from IS NULL AND e.outcome NOT LIKE 'refused%'
      AND e.at ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d'
      AND substring(e.detail from '"step": ?([0-9]+)') = t.id::text  -- read, never parsed: any text may be there
    ORDER BY e.seq LIMIT 1
) a ON true
WHERE t.round_no IS NULL;

ALTER TABLE stablepay.triage DISABLE TRIGGER triage_no_change;
UPDATE stablepay.triage t SET round_no = f.round_no, round_id = (
    SELECT ro.round_id FROM stablepay.rounds ro
    WHERE ro.server = t.server AND ro.rfi_id = t.rfi_id AND ro.round_no = f.round_no AND ro.imported_by IS NULL
    ORDER BY ro.first_seen, ro.id LIMIT 1)
FROM stablepay.round_repairs f WHERE f.step_id = t.id AND f.round_no IS NOT NULL;
ALTER TABLE stablepay.triage ENABLE TRIGGER triage_no_change;

-- --- who may do what --------------------------------------------------------------------------------------------

REVOKE ALL ON stablepay.round_repairs FROM PUBLIC;
GRANT SELECT ON stablepay.round_repairs TO stablepay_analyst, stablepay_watcher;
GRANT INSERT (round_no, round_id) ON stablepay.triage TO stablepay_analyst;
REVOKE ALL ON FUNCTION stablepay.round_at(text, text, timestamptz),
    stablepay.counts_now(text, text, integer, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION stablepay.round_at(text, text, timestamptz),
    stablepay.counts_now(text, text, integer, timestamptz) TO stablepay_analyst, stablepay_watcher;
