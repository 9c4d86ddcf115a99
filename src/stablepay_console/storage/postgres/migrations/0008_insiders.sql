-- The team record, version 8: no member can stop the others' work, and what a member types stays small and plain.
--
-- Run by `record init` as the owner, in one transaction. What changes:
-- - the record's own serialisation takes no advisory key (any login may take any advisory key, and one held from
--   psql stopped every write of the team): the audit chain is held by locking the chain's head row, the import by
--   a row of its own, the watcher's sightings of a server by a row per server; members may read these rows but
--   never lock them (a row lock needs UPDATE), only the owner's functions do, and they wait at most 3 s for it;
-- - an audit entry a member types (not one the database writes with an act) is bounded: its detail is a JSON
--   object of at most 20,000 bytes nested at most 20 deep, its action lower-case words joined by dots (like
--   `note.add`, at most 64 characters), its other fields at most 2,000 characters; an action naming an act the
--   database writes itself (`claim`, `claim.…`, `triage`, `triage.…`) is refused, except as a refusal
--   ("refused: …"); imported entries are held to the same bounds and shape;
-- - each entry says whether a member typed it (`typed`; empty for entries written before this version);
-- - `stablepay.stamped_by_nobody()` counts the rows stamped with a group role for `record status`, so every role
--   may run it (the watcher may not read the triage tables).
-- The triage step's own trigger is left as it is. A file that shipped is never edited: a change is the next
-- numbered file.

-- --- locks only the owner's functions take ------------------------------------------------------------------------

CREATE TABLE stablepay.import_held (single boolean PRIMARY KEY DEFAULT true CHECK (single));
INSERT INTO stablepay.import_held DEFAULT VALUES;
CREATE TABLE stablepay.sightings_held (server_key text PRIMARY KEY);
REVOKE ALL ON stablepay.import_held, stablepay.sightings_held FROM PUBLIC;

-- One entry at a time joins the chain: its head row, which members may read and never lock.
CREATE FUNCTION stablepay.hold_chain() RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET lock_timeout = '3s' AS $$
BEGIN
    IF pg_trigger_depth() = 0 THEN
        RAISE EXCEPTION 'the audit chain is held only while an entry is written' USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM 1 FROM stablepay.audit_head WHERE single FOR UPDATE;
END $$;

-- One sighting of a server at a time (two watchers of one server record a change once): a row per server.
CREATE FUNCTION stablepay.hold_sightings(servers text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET lock_timeout = '3s' AS $$
DECLARE
    me text := stablepay.person();
BEGIN
    IF NOT pg_has_role(me, 'stablepay_watcher', 'MEMBER') THEN
        RAISE EXCEPTION 'only the team watcher records what the API said (% is not a member of stablepay_watcher)', me
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO stablepay.sightings_held (server_key)
    SELECT DISTINCT md5(s) FROM unnest(servers) AS s ORDER BY 1 ON CONFLICT DO NOTHING;
    PERFORM 1 FROM stablepay.sightings_held WHERE server_key IN (SELECT md5(s) FROM unnest(servers) AS s)
    ORDER BY server_key FOR UPDATE;
END $$;

-- --- what a member types: bounded, plain, and never an act's own entry ----------------------------------------------

-- Whether JSON text nests at most `most` deep, without parsing it: each pass takes away the innermost pairs of
-- brackets (strings set aside), so the passes needed are the depth.
CREATE FUNCTION stablepay.json_depth_within(doc text, most integer) RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    brackets text := regexp_replace(regexp_replace(doc, '"(\\.|[^"\\])*"', '', 'g'), '[^][{}]', '', 'g');
    shorter text;
    passes integer := 0;
BEGIN
    WHILE brackets <> '' LOOP
        IF passes >= most THEN
            RETURN false;
        END IF;
        shorter := regexp_replace(brackets, '\[\]|\{\}', '', 'g');
        IF shorter = brackets THEN
            RETURN passes + length(brackets) <= most;  -- unmatched: not JSON
        END IF;
        brackets := shorter;
        passes := passes + 1;
    END LOOP;
    RETURN true;
END $$;

CREATE FUNCTION stablepay.entry_fits(action text, target text, outcome text, detail text, profile text,
    environment text, server text, by_hand boolean) RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    parsed jsonb;
BEGIN
    IF octet_length(coalesce(detail, '{}')) > 20000 THEN
        RAISE EXCEPTION 'an audit entry''s detail holds at most 20000 bytes (this one has %)', octet_length(detail)
            USING ERRCODE = 'check_violation';
    END IF;
    IF NOT stablepay.json_depth_within(coalesce(detail, '{}'), 20) THEN
        RAISE EXCEPTION 'an audit entry''s detail nests at most 20 deep' USING ERRCODE = 'check_violation';
    END IF;
    BEGIN
        parsed := coalesce(detail, '{}')::jsonb;
    EXCEPTION WHEN invalid_text_representation THEN
        RAISE EXCEPTION 'an audit entry''s detail is a JSON object; this one is not JSON' USING ERRCODE = 'check_violation';
    END;
    IF jsonb_typeof(parsed) <> 'object' THEN
        RAISE EXCEPTION 'an audit entry''s detail is a JSON object, not %', jsonb_typeof(parsed)
            USING ERRCODE = 'check_violation';
    END IF;
    IF coalesce(action, '') !~ '^[a-z]+(\.[a-z]+)*$' OR length(action) > 64 THEN
        RAISE EXCEPTION 'an audit entry''s action is lower-case words joined by dots (like note.add), at most 64 '
            'characters: % is not', quote_literal(left(coalesce(action, ''), 80)) USING ERRCODE = 'check_violation';
    END IF;
    IF greatest(length(target), length(outcome), length(profile), length(environment), length(server)) > 2000 THEN
        RAISE EXCEPTION 'an audit entry''s target, outcome, profile, environment and server hold at most 2000 characters'
            USING ERRCODE = 'check_violation';
    END IF;
    -- stablepay.act_entry (as the owner) writes these with the act; by hand, only a refusal may be noted
    IF by_hand AND (action IN ('claim', 'triage') OR action LIKE 'claim.%' OR action LIKE 'triage.%')
       AND coalesce(outcome, '') NOT LIKE 'refused: %' THEN
        RAISE EXCEPTION 'the audit entry of a claim or a triage step is written by the database with the act; '
            '''%'' cannot be written alone', action USING ERRCODE = 'insufficient_privilege';
    END IF;
END $$;

ALTER TABLE stablepay.audit ADD COLUMN typed boolean;

CREATE OR REPLACE FUNCTION stablepay.audit_stamp() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    last_seq bigint;
    last_hash text;
    by_owner boolean := stablepay.is_owner();
BEGIN
    IF by_owner AND NEW.imported_from IS NOT NULL THEN
        NEW.actor := NEW.imported_by;  -- stablepay.import_local: the importer, who vouches for it
        NEW.typed := false;
        PERFORM stablepay.entry_fits(NEW.action, NEW.target, NEW.outcome, NEW.detail, NEW.profile, NEW.environment,
                                     NEW.server, false);
    ELSE
        NEW.actor := stablepay.person();
        NEW.imported_from := NULL;
        NEW.imported_hash := NULL;
        NEW.imported_by := NULL;
        NEW.typed := NOT by_owner;  -- the owner writes only through stablepay.act_entry, with the act
        IF NOT by_owner THEN
            PERFORM stablepay.entry_fits(NEW.action, NEW.target, NEW.outcome, NEW.detail, NEW.profile,
                                         NEW.environment, NEW.server, true);
        END IF;
    END IF;
    PERFORM stablepay.hold_chain();  -- appends one at a time, on a lock no member can take
    SELECT a.seq, a.hash INTO last_seq, last_hash FROM stablepay.audit a ORDER BY a.seq DESC LIMIT 1;
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

-- --- importing: one at a time on a row of its own ---------------------------------------------------------------

CREATE OR REPLACE FUNCTION stablepay.import_local(source text, payload jsonb) RETURNS jsonb LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '3s' AS $$
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
    PERFORM 1 FROM stablepay.import_held WHERE single FOR UPDATE;  -- one import at a time (no member may lock it)

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

-- --- record status: every role may count what nobody answers for ------------------------------------------------

CREATE FUNCTION stablepay.stamped_by_nobody() RETURNS TABLE (kind text, found bigint) LANGUAGE sql STABLE
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    WITH nobody AS (SELECT rolname::text AS name FROM pg_roles WHERE NOT rolcanlogin)
    SELECT 'notes', count(*) FROM stablepay.notes WHERE author IN (SELECT name FROM nobody)
    UNION ALL SELECT 'claims', count(*) FROM stablepay.claims WHERE claimant IN (SELECT name FROM nobody)
    UNION ALL SELECT 'claimLog', count(*) FROM stablepay.claim_log WHERE by_role IN (SELECT name FROM nobody)
    UNION ALL SELECT 'steps', count(*) FROM stablepay.triage WHERE actor IN (SELECT name FROM nobody)
    UNION ALL SELECT 'auditEntries', count(*) FROM stablepay.audit WHERE actor IN (SELECT name FROM nobody)
    UNION ALL SELECT 'policy', count(*) FROM stablepay.triage_policy WHERE changed_by IN (SELECT name FROM nobody)
    UNION ALL SELECT 'sweeps', count(*) FROM stablepay.sweeps WHERE by_role IN (SELECT name FROM nobody)
$$;

-- --- who may do what --------------------------------------------------------------------------------------------

REVOKE ALL ON FUNCTION stablepay.hold_chain(), stablepay.hold_sightings(text[]), stablepay.json_depth_within(text, integer),
    stablepay.entry_fits(text, text, text, text, text, text, text, boolean), stablepay.stamped_by_nobody() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION stablepay.hold_chain(), stablepay.json_depth_within(text, integer),
    stablepay.entry_fits(text, text, text, text, text, text, text, boolean), stablepay.stamped_by_nobody()
    TO stablepay_analyst, stablepay_watcher;
GRANT EXECUTE ON FUNCTION stablepay.hold_sightings(text[]) TO stablepay_watcher;
