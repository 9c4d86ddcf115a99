-- The team record, version 4: every act is a person's, facts come from where they happen, input is bounded.
--
-- Run by `record init` as the owner, in one transaction. What changes:
-- - who did it is a person: a LOGIN role that is a member of a team group. An act under `SET ROLE` to a group
--   role (or to any role that cannot log in), or by a member acting as another member, is refused, whoever
--   tries it (a console, `psql`, the web server's authenticator);
-- - the audit entries of claims, triage steps and policy changes are written by the database with the act
--   (one entry per act, its outcome saying what happened); typed alone they are refused, except as a refusal
--   ("refused: …"), which records an attempt and counts as nothing;
-- - claims are kept as they were made (`claim_log`, written by the database), so counts never rest on audit rows;
-- - an import never writes a round or a status for a request the team watcher has seen, and an imported round
--   or status stays imported: the watcher's sighting of it is a row of its own;
-- - notes and step notes hold at most 20,000 characters.
-- Rows stamped before this version are left as they are (`record status` names any stamped with a group role).
-- A file that shipped is never edited: a change is the next numbered file.

-- --- a person -------------------------------------------------------------------------------------------------

CREATE FUNCTION stablepay.person() RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    who text := stablepay.caller();
    login boolean;
BEGIN
    SELECT r.rolcanlogin INTO login FROM pg_roles r WHERE r.rolname = who;
    IF who IN ('stablepay_analyst', 'stablepay_lead', 'stablepay_watcher') THEN
        RAISE EXCEPTION '% is a group role, not a person: every act in the team record is made under your own login '
            '(RESET ROLE, or connect as yourself)', who USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT coalesce(login, false) THEN
        RAISE EXCEPTION '% cannot log in, so it is nobody: every act in the team record is made under a person''s own '
            'login (RESET ROLE, or connect as yourself)', who USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT (pg_has_role(who, 'stablepay_analyst', 'MEMBER') OR pg_has_role(who, 'stablepay_watcher', 'MEMBER')) THEN
        RAISE EXCEPTION '% is not a member of the team''s roles (stablepay_analyst, stablepay_lead, stablepay_watcher)',
            who USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- Another login may act as this one only if it is no member itself: the web server's authenticator.
    IF who <> session_user::text AND EXISTS (
        SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles s ON s.oid = m.member
        WHERE s.rolname = session_user AND g.rolname IN ('stablepay_analyst', 'stablepay_lead', 'stablepay_watcher')
    ) THEN
        RAISE EXCEPTION '% logged in and acts as %: a member acts under their own name only', session_user, who
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN who;
END $$;

-- --- notes: a person's, and bounded ---------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION stablepay.note_author() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF stablepay.is_owner() AND NEW.imported_from IS NOT NULL THEN
        NEW.author := NEW.imported_by;
    ELSE
        NEW.author := stablepay.person();
        NEW.imported_from := NULL;
        NEW.imported_key := NULL;
        NEW.imported_by := NULL;
        NEW.written_as := NULL;
        NEW.written_at := NULL;
    END IF;
    NEW.at := clock_timestamp();
    RETURN NEW;
END $$;
-- NOT VALID: a longer note written before this version stays; every new one is checked.
ALTER TABLE stablepay.notes ADD CONSTRAINT notes_text_size CHECK (length(text) <= 20000) NOT VALID;
ALTER TABLE stablepay.triage DROP CONSTRAINT triage_note_check;
ALTER TABLE stablepay.triage ADD CONSTRAINT triage_note_size CHECK (length(note) <= 20000) NOT VALID;

-- --- claims: a person's, kept as they were made, each with its audit entry ---------------------------------------

CREATE TABLE stablepay.claim_log (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server   text NOT NULL,
    rfi_id   text NOT NULL,
    op       text NOT NULL CHECK (op IN ('claim', 'take over', 'extend', 'release')),
    claimant text NOT NULL,
    by_role  text NOT NULL,
    at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    until    timestamptz
);
CREATE INDEX claim_log_of_server ON stablepay.claim_log (server, id);
-- What was known of claims before this version: the claims in force, as they were taken.
INSERT INTO stablepay.claim_log (server, rfi_id, op, claimant, by_role, at, until)
SELECT server, rfi_id, 'claim', claimant, claimant, at, until FROM stablepay.claims ORDER BY at;

CREATE OR REPLACE FUNCTION stablepay.claim_holder() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    me text := stablepay.person();
BEGIN
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.claimant = me THEN
        NEW.at := OLD.at;  -- extending your own claim keeps its start
    ELSE
        NEW.at := clock_timestamp();
    END IF;
    NEW.claimant := me;
    RETURN NEW;
END $$;
CREATE TRIGGER claims_release_by BEFORE DELETE ON stablepay.claims
    FOR EACH ROW EXECUTE FUNCTION stablepay.claim_holder();

-- Written as the owner (members may not write the log, nor these audit entries by hand).
CREATE FUNCTION stablepay.act_entry(server text, profile text, action text, target text, outcome text, detail jsonb)
RETURNS void LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
    INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server)
    VALUES (coalesce(profile, ''), split_part(server, ' ', 1), action, target, outcome,
            (detail || jsonb_build_object('server', server))::text, server)
$$;

CREATE FUNCTION stablepay.claim_act() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    me text := stablepay.person();
    op text;
    outcome text;
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO stablepay.claim_log (server, rfi_id, op, claimant, by_role, until)
        VALUES (OLD.server, OLD.rfi_id, 'release', OLD.claimant, me, OLD.until);
        outcome := CASE WHEN OLD.claimant = me THEN 'released' ELSE 'released ' || OLD.claimant || '''s' END;
        PERFORM stablepay.act_entry(OLD.server, OLD.profile, 'claim.release', OLD.rfi_id, outcome, '{}'::jsonb);
        RETURN NULL;
    END IF;
    op := CASE WHEN TG_OP = 'INSERT' THEN 'claim' WHEN OLD.claimant = NEW.claimant THEN 'extend' ELSE 'take over' END;
    INSERT INTO stablepay.claim_log (server, rfi_id, op, claimant, by_role, at, until)
    VALUES (NEW.server, NEW.rfi_id, op, NEW.claimant, me, clock_timestamp(), NEW.until);
    outcome := CASE op WHEN 'claim' THEN 'claimed' WHEN 'extend' THEN 'claimed (extended)'
               ELSE 'claimed (took over from ' || OLD.claimant || ')' END;
    PERFORM stablepay.act_entry(NEW.server, NEW.profile, 'claim', NEW.rfi_id, outcome,
                                jsonb_strip_nulls(jsonb_build_object('until', NEW.until)));
    RETURN NULL;
END $$;
CREATE TRIGGER claims_act AFTER INSERT OR UPDATE OR DELETE ON stablepay.claims
    FOR EACH ROW EXECUTE FUNCTION stablepay.claim_act();

-- --- triage: a person's steps, each with exactly its own audit entry ---------------------------------------------

-- Where a request stands, from its steps before `before_id` in its current round and its claim.
CREATE FUNCTION stablepay.step_at(at_server text, at_rfi text, before_id bigint) RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    seen_status text;
    seen_round  integer;
    holder      text;
    last_step   text;
BEGIN
    SELECT r.status, ro.round_no INTO seen_status, seen_round
    FROM stablepay.rfis r LEFT JOIN stablepay.rounds ro ON ro.id = r.round_row
    WHERE r.server = at_server AND r.rfi_id = at_rfi;
    IF seen_status IN ('submitted', 'resolved', 'expired') THEN
        RETURN seen_status;
    END IF;
    SELECT claimant INTO holder FROM stablepay.claims
    WHERE server = at_server AND rfi_id = at_rfi AND (until IS NULL OR until > now());
    SELECT step INTO last_step FROM stablepay.triage
    WHERE server = at_server AND rfi_id = at_rfi AND round_no IS NOT DISTINCT FROM seen_round AND id < before_id
    ORDER BY id DESC LIMIT 1;
    RETURN CASE last_step WHEN 'ready' THEN 'ready' WHEN 'approve' THEN 'approved' WHEN 'wait' THEN 'waiting'
           ELSE CASE WHEN holder IS NULL THEN 'unclaimed' ELSE 'claimed' END END;
END $$;

CREATE OR REPLACE FUNCTION stablepay.triage_check() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    seen_round  integer;
    holder      text;
    maker       text;
    at_step     text;
BEGIN
    NEW.actor := stablepay.person();
    NEW.at := clock_timestamp();
    PERFORM pg_advisory_xact_lock(hashtextextended(NEW.server || ' ' || NEW.rfi_id, 1397772371));
    SELECT ro.round_no INTO seen_round
    FROM stablepay.rfis r LEFT JOIN stablepay.rounds ro ON ro.id = r.round_row
    WHERE r.server = NEW.server AND r.rfi_id = NEW.rfi_id;
    NEW.round_no := seen_round;
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
        SELECT actor INTO maker FROM stablepay.triage
        WHERE server = NEW.server AND rfi_id = NEW.rfi_id AND round_no IS NOT DISTINCT FROM seen_round
          AND step = 'ready'
        ORDER BY id DESC LIMIT 1;
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

-- The step's own audit entry, written with it: its outcome is where the request stands after it.
CREATE FUNCTION stablepay.triage_act() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM stablepay.act_entry(NEW.server, NEW.profile, 'triage.' || NEW.step, NEW.rfi_id,
        stablepay.step_at(NEW.server, NEW.rfi_id, NEW.id + 1),
        jsonb_strip_nulls(jsonb_build_object('was', stablepay.step_at(NEW.server, NEW.rfi_id, NEW.id),
                                             'note', nullif(NEW.note, ''), 'step', NEW.id)));
    RETURN NULL;
END $$;
CREATE TRIGGER triage_2_act AFTER INSERT ON stablepay.triage FOR EACH ROW EXECUTE FUNCTION stablepay.triage_act();

-- At commit, each step has exactly one audit entry, the one written with it.
DROP TRIGGER triage_2_audited ON stablepay.triage;
CREATE OR REPLACE FUNCTION stablepay.triage_audited() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    found bigint;
BEGIN
    SELECT count(*) INTO found FROM stablepay.audit a
    WHERE a.action = 'triage.' || NEW.step AND a.target = NEW.rfi_id AND a.server = NEW.server
      AND a.actor = NEW.actor
      -- only the database's own entries are read as JSON (a refusal typed by hand may hold anything)
      AND CASE WHEN a.imported_from IS NULL AND a.outcome NOT LIKE 'refused%'
               THEN (a.detail::jsonb ->> 'step') = NEW.id::text ELSE false END;
    IF found <> 1 THEN
        RAISE EXCEPTION 'every triage step is exactly one audit entry, written with it: % on % has %', NEW.step,
            NEW.rfi_id, found USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER triage_3_audited AFTER INSERT ON stablepay.triage DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION stablepay.triage_audited();

CREATE OR REPLACE FUNCTION stablepay.triage_policy_changed() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    NEW.single := true;
    NEW.changed_by := stablepay.person();
    NEW.changed_at := clock_timestamp();
    RETURN NEW;
END $$;
CREATE FUNCTION stablepay.triage_policy_act() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM stablepay.act_entry('', '', 'triage.policy', 'policy', 'changed', jsonb_build_object(
        'claim_within', extract(epoch FROM NEW.claim_within)::bigint,
        'ready_within', extract(epoch FROM NEW.ready_within)::bigint,
        'approve_before', extract(epoch FROM NEW.approve_before)::bigint));
    RETURN NULL;
END $$;
CREATE TRIGGER triage_policy_act AFTER UPDATE ON stablepay.triage_policy
    FOR EACH ROW EXECUTE FUNCTION stablepay.triage_policy_act();

-- --- the audit log: a person's entries; the entries of acts only with the act ------------------------------------

CREATE OR REPLACE FUNCTION stablepay.audit_stamp() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    last_seq bigint;
    last_hash text;
BEGIN
    PERFORM pg_advisory_xact_lock(1397769038);  -- 0x5350434E "SPCN": appends one at a time
    SELECT a.seq, a.hash INTO last_seq, last_hash FROM stablepay.audit a ORDER BY a.seq DESC LIMIT 1;
    IF stablepay.is_owner() AND NEW.imported_from IS NOT NULL THEN
        NEW.actor := NEW.imported_by;  -- stablepay.import_local: the importer, who vouches for it
    ELSE
        NEW.actor := stablepay.person();
        NEW.imported_from := NULL;
        NEW.imported_hash := NULL;
        NEW.imported_by := NULL;
        -- stablepay.act_entry (as the owner) writes these with the act; by hand, only a refusal may be noted
        IF (NEW.action IN ('claim', 'claim.release') OR NEW.action LIKE 'triage.%') AND NOT stablepay.is_owner()
           AND coalesce(NEW.outcome, '') NOT LIKE 'refused: %' THEN
            RAISE EXCEPTION 'the audit entry of a claim or a triage step is written by the database with the act; '
                '''%'' cannot be written alone', NEW.action USING ERRCODE = 'insufficient_privilege';
        END IF;
    END IF;
    NEW.seq := coalesce(last_seq, 0) + 1;
    NEW.prev_hash := coalesce(last_hash, '0000000000000000000000000000000000000000000000000000000000000000');
    NEW.at := to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"');
    NEW.profile := coalesce(NEW.profile, '');
    NEW.environment := coalesce(NEW.environment, '');
    NEW.action := coalesce(NEW.action, '');
    NEW.target := coalesce(NEW.target, '');
    NEW.outcome := coalesce(NEW.outcome, '');
    NEW.detail := coalesce(NEW.detail, '{}');
    NEW.server := coalesce(NEW.server, '');
    NEW.hash := stablepay.entry_hash(NEW.prev_hash, NEW.seq, NEW.at, NEW.actor, NEW.profile, NEW.environment,
                                     NEW.action, NEW.target, NEW.outcome, NEW.detail);
    RETURN NEW;
END $$;

-- --- facts from the API: the watcher's, a person; an imported row stays imported ---------------------------------

CREATE OR REPLACE FUNCTION stablepay.fact_writer() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM stablepay.person();
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME IN ('rounds', 'statuses') THEN
        NEW.imported_by := OLD.imported_by;  -- the watcher's own sighting is a row of its own
        NEW.first_seen := OLD.first_seen;
    ELSIF NOT (stablepay.is_owner() AND NEW.imported_by IS NOT NULL) THEN
        NEW.imported_by := NULL;  -- the watcher saw it itself
    END IF;
    RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION stablepay.sweep_stamp() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    NEW.swept_at := clock_timestamp();
    NEW.by_role := stablepay.person();
    RETURN NEW;
END $$;

-- --- importing: a person's, and never over what the watcher saw -------------------------------------------------

CREATE OR REPLACE FUNCTION stablepay.import_local(source text, payload jsonb) RETURNS jsonb LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    importer text := stablepay.person();
    n_rfis integer := 0;
    n_rounds integer := 0;
    n_statuses integer := 0;
    n_notes integer := 0;
    n_entries integer := 0;
BEGIN
    IF NOT pg_has_role(importer, 'stablepay_analyst', 'MEMBER') THEN
        RAISE EXCEPTION 'only a member of stablepay_analyst may import a local record (not %)', importer
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF coalesce(source, '') = '' THEN
        RAISE EXCEPTION 'an import names where it comes from' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM pg_advisory_xact_lock(1397770573);  -- 0x5350494D "SPIM": one import at a time

    WITH fresh AS (
        SELECT r.* FROM jsonb_to_recordset(coalesce(payload -> 'rounds', '[]'))
            AS r(server text, rfi_id text, round_no integer, round_id text, fingerprint text, issued_at text,
                 expires_at text, submitted_at text, link text, wire text, first_seen text, last_seen text)
        WHERE NOT EXISTS (SELECT 1 FROM stablepay.rounds o WHERE o.server = r.server AND o.rfi_id = r.rfi_id
                          AND o.fingerprint = r.fingerprint AND o.first_seen = r.first_seen)
          AND NOT EXISTS (SELECT 1 FROM stablepay.rfis w WHERE w.server = r.server AND w.rfi_id = r.rfi_id
                          AND w.imported_by IS NULL)
    ), added AS (
        INSERT INTO stablepay.rounds (server, rfi_id, round_no, round_id, fingerprint, issued_at, expires_at,
            submitted_at, link, wire, first_seen, last_seen, imported_by)
        SELECT server, rfi_id, round_no, round_id, fingerprint, issued_at, expires_at, submitted_at, link, wire,
            first_seen, last_seen, importer FROM fresh RETURNING 1
    ) SELECT count(*) INTO n_rounds FROM added;

    WITH fresh AS (
        SELECT s.* FROM jsonb_to_recordset(coalesce(payload -> 'statuses', '[]'))
            AS s(server text, rfi_id text, status text, first_seen text, last_seen text)
        WHERE NOT EXISTS (SELECT 1 FROM stablepay.statuses o WHERE o.server = s.server AND o.rfi_id = s.rfi_id
                          AND o.status = s.status AND o.first_seen = s.first_seen)
          AND NOT EXISTS (SELECT 1 FROM stablepay.rfis w WHERE w.server = s.server AND w.rfi_id = s.rfi_id
                          AND w.imported_by IS NULL)
    ), added AS (
        INSERT INTO stablepay.statuses (server, rfi_id, status, first_seen, last_seen, imported_by)
        SELECT server, rfi_id, status, first_seen, last_seen, importer FROM fresh RETURNING 1
    ) SELECT count(*) INTO n_statuses FROM added;

    WITH added AS (
        INSERT INTO stablepay.rfis (server, rfi_id, environment, status, fingerprint, wire, first_seen, last_seen,
            imported_by, round_row, status_row)
        SELECT r.server, r.rfi_id, r.environment, r.status, r.fingerprint, r.wire, r.first_seen, r.last_seen, importer,
            (SELECT o.id FROM stablepay.rounds o WHERE o.server = r.server AND o.rfi_id = r.rfi_id
             AND o.fingerprint = r.round_fingerprint AND o.first_seen = r.round_first_seen ORDER BY o.id LIMIT 1),
            (SELECT o.id FROM stablepay.statuses o WHERE o.server = r.server AND o.rfi_id = r.rfi_id
             AND o.status = r.status AND o.first_seen = r.status_first_seen ORDER BY o.id LIMIT 1)
        FROM jsonb_to_recordset(coalesce(payload -> 'rfis', '[]'))
            AS r(server text, rfi_id text, environment text, status text, fingerprint text, wire text,
                 first_seen text, last_seen text, round_fingerprint text, round_first_seen text,
                 status_first_seen text)
        ON CONFLICT (server, rfi_id) DO NOTHING RETURNING 1
    ) SELECT count(*) INTO n_rfis FROM added;

    WITH added AS (
        INSERT INTO stablepay.notes (server, rfi_id, profile, text, imported_from, imported_key, imported_by,
            written_as, written_at)
        SELECT n.server, n.rfi_id, n.profile, n.text, source, n.key, importer, n.author, n.at
        FROM jsonb_to_recordset(coalesce(payload -> 'notes', '[]'))
            AS n(server text, rfi_id text, profile text, text text, key text, author text, at timestamptz)
        WHERE length(n.text) <= 20000
        ON CONFLICT (imported_key) DO NOTHING RETURNING 1
    ) SELECT count(*) INTO n_notes FROM added;

    WITH added AS (
        INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server, imported_from,
            imported_hash, imported_by)
        SELECT e.value ->> 'profile', e.value ->> 'environment', e.value ->> 'action', e.value ->> 'target',
            e.value ->> 'outcome', e.value ->> 'detail', e.value ->> 'server', source, e.value ->> 'hash', importer
        FROM jsonb_array_elements(coalesce(payload -> 'entries', '[]')) WITH ORDINALITY AS e(value, ord)
        WHERE NOT EXISTS (SELECT 1 FROM stablepay.audit o WHERE o.imported_hash = e.value ->> 'hash')
        ORDER BY e.ord
        RETURNING 1
    ) SELECT count(*) INTO n_entries FROM added;

    RETURN jsonb_build_object('requests', n_rfis, 'rounds', n_rounds, 'statuses', n_statuses, 'notes', n_notes,
                              'auditEntries', n_entries);
END $$;

-- --- who may do what --------------------------------------------------------------------------------------------

REVOKE ALL ON stablepay.claim_log FROM PUBLIC;
GRANT SELECT ON stablepay.claim_log TO stablepay_analyst, stablepay_watcher;
REVOKE ALL ON FUNCTION stablepay.person(), stablepay.act_entry(text, text, text, text, text, jsonb),
    stablepay.claim_act(), stablepay.step_at(text, text, bigint), stablepay.triage_act(),
    stablepay.triage_policy_act() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION stablepay.person(), stablepay.step_at(text, text, bigint)
    TO stablepay_analyst, stablepay_watcher;
