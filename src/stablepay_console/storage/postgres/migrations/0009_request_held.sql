-- The team record, version 9: a request's steps wait on no key a member can take, and four eyes hold in any
-- isolation level.
--
-- Run by `record init` as the owner, in one transaction. What changes:
-- - a request's steps and its assignment are serialised on a row of their own per request
--   (`stablepay.request_held`), which only the owner's functions lock, waiting at most 3 s; until now they took an
--   advisory key (any login may take any advisory key: one held from psql stopped every step of that request);
-- - the team watcher's recording of a request's facts (its status, its round, or its first sight as closed) moves
--   that row too, so a step waits for the watcher's recording and then reads it: in READ COMMITTED the step sees
--   the request closed and is refused; a transaction whose snapshot was taken before the watcher recorded it
--   (REPEATABLE READ, SERIALIZABLE) cannot lock the moved row and is refused with "could not serialize access due
--   to concurrent update". Either way nothing of the step is kept: a closed request is never approved.
-- A file that shipped is never edited: a change is the next numbered file.

-- --- one request at a time: a row per request, locked by the owner's functions only -----------------------------

CREATE TABLE stablepay.request_held (
    server text NOT NULL,
    rfi_id text NOT NULL,
    facts  bigint NOT NULL DEFAULT 0,  -- how often the watcher recorded the request's facts (what moves the row)
    PRIMARY KEY (server, rfi_id)
);
REVOKE ALL ON stablepay.request_held FROM PUBLIC;

-- Called only from the owner's own functions (no member may run it): holds the request until the transaction ends.
CREATE FUNCTION stablepay.hold_request(at_server text, at_rfi text) RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp SET lock_timeout = '3s' AS $$
BEGIN
    INSERT INTO stablepay.request_held (server, rfi_id) VALUES (at_server, at_rfi) ON CONFLICT DO NOTHING;
    PERFORM 1 FROM stablepay.request_held WHERE server = at_server AND rfi_id = at_rfi FOR UPDATE;
END $$;

-- Before each step is checked: its request is held (a trigger function: no member may call it, nor attach it).
CREATE FUNCTION stablepay.triage_hold() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM stablepay.hold_request(NEW.server, NEW.rfi_id);
    RETURN NEW;
END $$;
CREATE TRIGGER triage_0_hold BEFORE INSERT ON stablepay.triage FOR EACH ROW EXECUTE FUNCTION stablepay.triage_hold();

-- The watcher's recording of what a step rests on moves the request's row (and waits for a step under way).
CREATE FUNCTION stablepay.request_facts_moved() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET lock_timeout = '3s' AS $$
BEGIN
    INSERT INTO stablepay.request_held AS h (server, rfi_id, facts) VALUES (NEW.server, NEW.rfi_id, 1)
    ON CONFLICT (server, rfi_id) DO UPDATE SET facts = h.facts + 1;
    RETURN NULL;
END $$;
-- First seen closed (first seen issued changes nothing a person did: migration 6), or its status, round or origin
-- changed; a sighting that only moves "last seen" leaves the row alone.
CREATE TRIGGER rfis_facts_first AFTER INSERT ON stablepay.rfis FOR EACH ROW
    WHEN (NEW.status IN ('submitted', 'resolved', 'expired')) EXECUTE FUNCTION stablepay.request_facts_moved();
CREATE TRIGGER rfis_facts_moved AFTER UPDATE ON stablepay.rfis FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.round_row IS DISTINCT FROM NEW.round_row
          OR OLD.imported_by IS DISTINCT FROM NEW.imported_by)
    EXECUTE FUNCTION stablepay.request_facts_moved();

-- --- the step's checks and assign(): as before, without the advisory key ------------------------------------------

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
    -- the request is held already (trigger triage_0_hold): in READ COMMITTED each read below sees the latest facts
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

CREATE OR REPLACE FUNCTION stablepay.assign(at_server text, at_profile text, at_rfi text, analyst text)
RETURNS TABLE (claimant text, at timestamptz, assigned_by text, previous text) LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    me text := stablepay.person();
    before text;
    at_step text;
BEGIN
    IF NOT pg_has_role(me, 'stablepay_lead', 'MEMBER') THEN
        RAISE EXCEPTION 'only a lead assigns requests: % is not a member of stablepay_lead', me
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM stablepay.team_analysts() t WHERE t.analyst = assign.analyst) THEN
        RAISE EXCEPTION '% is not an analyst of the team (a login that is a member of stablepay_analyst)',
            left(coalesce(assign.analyst, ''), 80) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM stablepay.hold_request(at_server, at_rfi);  -- as a step holds it
    at_step := stablepay.step_at(at_server, at_rfi, 9223372036854775807);
    IF at_step IN ('submitted', 'resolved', 'expired') THEN
        RAISE EXCEPTION '% is closed: the provider says it is %', at_rfi, at_step USING ERRCODE = 'check_violation';
    END IF;
    SELECT c.claimant INTO before FROM stablepay.claims c
    WHERE c.server = at_server AND c.rfi_id = at_rfi AND (c.until IS NULL OR c.until > now());
    PERFORM set_config('stablepay.assigning', assign.analyst, true);
    INSERT INTO stablepay.claims AS c (server, rfi_id, profile) VALUES (at_server, at_rfi, coalesce(at_profile, ''))
    ON CONFLICT (server, rfi_id) DO UPDATE SET profile = EXCLUDED.profile, until = NULL;
    PERFORM set_config('stablepay.assigning', '', true);
    RETURN QUERY SELECT c.claimant, c.at, c.assigned_by, before FROM stablepay.claims c
        WHERE c.server = at_server AND c.rfi_id = at_rfi;
END $$;

-- --- who may do what --------------------------------------------------------------------------------------------

REVOKE ALL ON FUNCTION stablepay.hold_request(text, text), stablepay.triage_hold(), stablepay.request_facts_moved()
    FROM PUBLIC;
