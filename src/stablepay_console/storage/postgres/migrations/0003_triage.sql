-- The team record: triage steps and the team's service levels. Run by `record init` as the database
-- owner, in one transaction. A file that shipped is never edited: a change is the next numbered file.
--
-- Who and when are the database's: a step's actor is current_user and its time clock_timestamp(),
-- whatever a client sends (analysts may INSERT only the content columns). The order of steps and the
-- four-eyes rule are checked by a trigger, so an analyst's own psql cannot approve their own answer; a step
-- without its audit entry in the same transaction is refused at commit.

CREATE TABLE stablepay.triage (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server   text NOT NULL,
    rfi_id   text NOT NULL,
    profile  text NOT NULL DEFAULT '',
    step     text NOT NULL CHECK (step IN ('ready', 'approve', 'reject', 'wait', 'resume')),
    note     text NOT NULL DEFAULT '' CHECK (length(note) <= 4000),
    actor    text NOT NULL DEFAULT current_user,
    at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    round_no integer
);
CREATE INDEX triage_of_rfi ON stablepay.triage (server, rfi_id, id);

-- The step a request is at, from its last step in the current round and its claim; the provider's
-- submitted, resolved and expired close it. Steps of one request are serialised (an advisory lock).
CREATE FUNCTION stablepay.triage_check() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    seen_status text;
    seen_round  integer;
    holder      text;
    last_step   text;
    maker       text;
    at_step     text;
BEGIN
    NEW.actor := current_user;
    NEW.at := clock_timestamp();
    PERFORM pg_advisory_xact_lock(hashtextextended(NEW.server || ' ' || NEW.rfi_id, 1397772371));
    SELECT r.status, ro.round_no INTO seen_status, seen_round
    FROM stablepay.rfis r LEFT JOIN stablepay.rounds ro ON ro.id = r.round_row
    WHERE r.server = NEW.server AND r.rfi_id = NEW.rfi_id;
    NEW.round_no := seen_round;
    IF seen_status IN ('submitted', 'resolved', 'expired') THEN
        RAISE EXCEPTION '% is closed: the provider says it is %', NEW.rfi_id, seen_status
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT claimant INTO holder FROM stablepay.claims
    WHERE server = NEW.server AND rfi_id = NEW.rfi_id AND (until IS NULL OR until > now());
    SELECT step INTO last_step FROM stablepay.triage
    WHERE server = NEW.server AND rfi_id = NEW.rfi_id AND round_no IS NOT DISTINCT FROM seen_round
    ORDER BY id DESC LIMIT 1;
    at_step := CASE last_step WHEN 'ready' THEN 'ready' WHEN 'approve' THEN 'approved' WHEN 'wait' THEN 'waiting'
               ELSE CASE WHEN holder IS NULL THEN 'unclaimed' ELSE 'claimed' END END;
    IF NEW.step = 'ready' THEN
        IF at_step <> 'claimed' THEN
            RAISE EXCEPTION '% is %; ''ready'' needs it claimed', NEW.rfi_id, at_step USING ERRCODE = 'check_violation';
        END IF;
        IF holder IS DISTINCT FROM current_user::text THEN
            RAISE EXCEPTION 'only the claimant makes an answer ready; % is claimed by %', NEW.rfi_id, holder
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    ELSIF NEW.step = 'approve' THEN
        IF at_step <> 'ready' THEN
            RAISE EXCEPTION '% is %; ''approve'' needs it ready', NEW.rfi_id, at_step USING ERRCODE = 'check_violation';
        END IF;
        SELECT actor INTO maker FROM stablepay.triage
        WHERE server = NEW.server AND rfi_id = NEW.rfi_id AND round_no IS NOT DISTINCT FROM seen_round
          AND step = 'ready'
        ORDER BY id DESC LIMIT 1;
        IF maker = current_user::text THEN
            RAISE EXCEPTION 'four eyes: % made the answer ready and cannot approve it', current_user
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
CREATE TRIGGER triage_1_check BEFORE INSERT ON stablepay.triage
    FOR EACH ROW EXECUTE FUNCTION stablepay.triage_check();

-- Every step is an audit entry in the same transaction: at commit, the step's own entry (its action, request,
-- server and actor, written at or after it) must be there, or nothing of the transaction is kept.
CREATE FUNCTION stablepay.triage_audited() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM stablepay.audit a
        WHERE a.action = 'triage.' || NEW.step AND a.target = NEW.rfi_id AND a.server = NEW.server
          AND a.actor = NEW.actor
          AND a.at >= to_char(date_trunc('milliseconds', NEW.at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')
    ) THEN
        RAISE EXCEPTION 'every triage step is an audit entry in the same transaction: % on % has none', NEW.step,
            NEW.rfi_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER triage_2_audited AFTER INSERT ON stablepay.triage DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION stablepay.triage_audited();

CREATE FUNCTION stablepay.triage_append_only() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'triage steps are append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER triage_no_change BEFORE UPDATE OR DELETE ON stablepay.triage
    FOR EACH ROW EXECUTE FUNCTION stablepay.triage_append_only();
CREATE TRIGGER triage_no_truncate BEFORE TRUNCATE ON stablepay.triage
    FOR EACH STATEMENT EXECUTE FUNCTION stablepay.triage_append_only();
CREATE TRIGGER triage_tell AFTER INSERT ON stablepay.triage FOR EACH ROW EXECUTE FUNCTION stablepay.tell();

-- One policy for the team. Only a lead (or the owner) may change it; the database says who and when.
CREATE TABLE stablepay.triage_policy (
    single         boolean PRIMARY KEY DEFAULT true CHECK (single),
    claim_within   interval NOT NULL DEFAULT '4 hours' CHECK (claim_within > interval '0'),
    ready_within   interval NOT NULL DEFAULT '24 hours' CHECK (ready_within > interval '0'),
    approve_before interval NOT NULL DEFAULT '12 hours' CHECK (approve_before >= interval '0'),
    changed_by     text NOT NULL DEFAULT current_user,
    changed_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
INSERT INTO stablepay.triage_policy DEFAULT VALUES;

CREATE FUNCTION stablepay.triage_policy_changed() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    NEW.single := true;
    NEW.changed_by := current_user;
    NEW.changed_at := clock_timestamp();
    RETURN NEW;
END $$;
CREATE TRIGGER triage_policy_who BEFORE UPDATE ON stablepay.triage_policy
    FOR EACH ROW EXECUTE FUNCTION stablepay.triage_policy_changed();
CREATE TRIGGER triage_policy_no_delete BEFORE DELETE ON stablepay.triage_policy
    FOR EACH ROW EXECUTE FUNCTION stablepay.triage_append_only();

REVOKE ALL ON stablepay.triage, stablepay.triage_policy FROM PUBLIC;
REVOKE ALL ON FUNCTION stablepay.triage_check(), stablepay.triage_audited(), stablepay.triage_append_only(),
    stablepay.triage_policy_changed() FROM PUBLIC;
GRANT SELECT ON stablepay.triage, stablepay.triage_policy TO stablepay_analyst;
GRANT INSERT (server, rfi_id, profile, step, note) ON stablepay.triage TO stablepay_analyst;
GRANT UPDATE (claim_within, ready_within, approve_before) ON stablepay.triage_policy TO stablepay_lead;
