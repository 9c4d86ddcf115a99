-- The team record, version 2: the database, never a client, decides who did what and when.
--
-- Run by `record init` as the owner, in the same transaction as the version bump, after the group roles
-- stablepay_analyst, stablepay_lead and stablepay_watcher exist. What changes:
-- - the audit log: a client inserts the content only (profile, environment, action, target, outcome,
--   detail, server); the database numbers the entry, stamps its time and actor, chains it to the entry
--   before it and computes its hash (sha256, the same canonical form as the local record's), under one
--   lock, so no member can write an entry off the chain or as someone else;
-- - notes: the author and time are the database's; an imported note is the importer's testimony
--   (author = the role that imported it, written_as / written_at = what the local record said);
-- - importing a local record goes through stablepay.import_local (SECURITY DEFINER) only;
-- - facts from the API (rfis, rounds, statuses, sweeps) are written by stablepay_watcher only; imported
--   ones are tagged and never trusted by the team's views until the watcher has seen them itself;
-- - analysts may change nothing shared but their own claims.
-- A file that shipped is never edited: a change is the next numbered file.

GRANT USAGE ON SCHEMA stablepay TO stablepay_watcher;

-- The chain's canonical JSON, byte for byte as Python's json.dumps(..., ensure_ascii=True) writes a string.
CREATE FUNCTION stablepay.ascii_json(value text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    quoted text := to_json(value)::text;
    out text := '';
    ch text;
    code integer;
BEGIN
    IF quoted !~ '[^\x20-\x7e]' THEN
        RETURN quoted;
    END IF;
    FOREACH ch IN ARRAY regexp_split_to_array(quoted, '') LOOP
        code := ascii(ch);
        IF code BETWEEN 32 AND 126 THEN
            out := out || ch;
        ELSIF code > 65535 THEN
            code := code - 65536;
            out := out || '\u' || lpad(to_hex(55296 + (code >> 10)), 4, '0')
                       || '\u' || lpad(to_hex(56320 + (code & 1023)), 4, '0');
        ELSE
            out := out || '\u' || lpad(to_hex(code), 4, '0');
        END IF;
    END LOOP;
    RETURN out;
END $$;

CREATE FUNCTION stablepay.entry_hash(prev text, seq bigint, at text, actor text, profile text, environment text,
    action text, target text, outcome text, detail text) RETURNS text LANGUAGE sql IMMUTABLE STRICT
SET search_path = pg_catalog, pg_temp AS $$
    SELECT encode(sha256(convert_to(prev || E'\n'
        || '{"action":' || stablepay.ascii_json(action)
        || ',"actor":' || stablepay.ascii_json(actor)
        || ',"at":' || stablepay.ascii_json(at)
        || ',"detail":' || stablepay.ascii_json(detail)
        || ',"environment":' || stablepay.ascii_json(environment)
        || ',"outcome":' || stablepay.ascii_json(outcome)
        || ',"profile":' || stablepay.ascii_json(profile)
        || ',"seq":' || seq::text
        || ',"target":' || stablepay.ascii_json(target) || '}', 'UTF8')), 'hex')
$$;

-- The role that owns the schema: only stablepay.import_local runs as it (no application role may own it).
CREATE FUNCTION stablepay.is_owner() RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp AS $$
    SELECT coalesce((SELECT n.nspowner = r.oid FROM pg_namespace n, pg_roles r
                     WHERE n.nspname = 'stablepay' AND r.rolname = current_user), false)
$$;

-- Who called a SECURITY DEFINER function: the role set by SET ROLE (the web console's user), else the login.
CREATE FUNCTION stablepay.caller() RETURNS text LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE current_setting('role') WHEN 'none' THEN session_user::text ELSE current_setting('role') END
$$;

-- --- the audit log ----------------------------------------------------------------------------------------------

DROP TRIGGER audit_1_actor ON stablepay.audit;
DROP TRIGGER audit_2_chain ON stablepay.audit;
DROP FUNCTION stablepay.audit_actor();
DROP FUNCTION stablepay.audit_follows();

-- Runs as the role inserting (so current_user is who did it), with a pinned search_path.
CREATE FUNCTION stablepay.audit_stamp() RETURNS trigger LANGUAGE plpgsql
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
        NEW.actor := current_user::text;
        NEW.imported_from := NULL;
        NEW.imported_hash := NULL;
        NEW.imported_by := NULL;
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
CREATE TRIGGER audit_1_stamp BEFORE INSERT ON stablepay.audit FOR EACH ROW EXECUTE FUNCTION stablepay.audit_stamp();

-- --- notes ------------------------------------------------------------------------------------------------------

ALTER TABLE stablepay.notes ADD COLUMN written_as text, ADD COLUMN written_at timestamptz;
-- Version 1 kept an imported note under its original author: it is the importer's testimony.
UPDATE stablepay.notes SET written_as = author, written_at = at, author = imported_by
WHERE imported_from IS NOT NULL AND imported_by IS NOT NULL;
UPDATE stablepay.notes SET written_as = author, written_at = at, author = '(unknown importer)'
WHERE imported_from IS NOT NULL AND imported_by IS NULL;

CREATE OR REPLACE FUNCTION stablepay.note_author() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF stablepay.is_owner() AND NEW.imported_from IS NOT NULL THEN
        NEW.author := NEW.imported_by;
    ELSE
        NEW.author := current_user::text;
        NEW.imported_from := NULL;
        NEW.imported_key := NULL;
        NEW.imported_by := NULL;
        NEW.written_as := NULL;
        NEW.written_at := NULL;
    END IF;
    NEW.at := clock_timestamp();
    RETURN NEW;
END $$;

-- --- facts from the API: the watcher's; an imported one is tagged until the watcher has seen it -------------------

ALTER TABLE stablepay.rfis ADD COLUMN imported_by text;
ALTER TABLE stablepay.rounds ADD COLUMN imported_by text;
ALTER TABLE stablepay.statuses ADD COLUMN imported_by text;
-- Version 1 let any analyst write these; the rows came from consoles, not from a watcher: trust none of them
-- for the team's views until the watcher sees the request again (history still shows them).
UPDATE stablepay.rfis SET imported_by = '(version 1)';

CREATE FUNCTION stablepay.fact_writer() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT (stablepay.is_owner() AND NEW.imported_by IS NOT NULL) THEN
        NEW.imported_by := NULL;  -- the watcher saw it itself
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER rfis_writer BEFORE INSERT OR UPDATE ON stablepay.rfis
    FOR EACH ROW EXECUTE FUNCTION stablepay.fact_writer();
CREATE TRIGGER rounds_writer BEFORE INSERT OR UPDATE ON stablepay.rounds
    FOR EACH ROW EXECUTE FUNCTION stablepay.fact_writer();
CREATE TRIGGER statuses_writer BEFORE INSERT OR UPDATE ON stablepay.statuses
    FOR EACH ROW EXECUTE FUNCTION stablepay.fact_writer();

CREATE FUNCTION stablepay.sweep_stamp() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    NEW.swept_at := clock_timestamp();
    NEW.by_role := current_user::text;
    RETURN NEW;
END $$;
CREATE TRIGGER sweeps_stamp BEFORE INSERT OR UPDATE ON stablepay.sweeps
    FOR EACH ROW EXECUTE FUNCTION stablepay.sweep_stamp();

-- The needs-action view and `rfis due` from the record: the issued requests of a server the watcher vouches for,
-- by deadline (the current round's, kept on the request's row by the database: stamps sort as times).
ALTER TABLE stablepay.rfis ADD COLUMN deadline text;
UPDATE stablepay.rfis r SET deadline = ro.expires_at FROM stablepay.rounds ro WHERE ro.id = r.round_row;
CREATE FUNCTION stablepay.rfi_deadline() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    NEW.deadline := (SELECT ro.expires_at FROM stablepay.rounds ro WHERE ro.id = NEW.round_row);
    RETURN NEW;
END $$;
CREATE TRIGGER rfis_deadline BEFORE INSERT OR UPDATE ON stablepay.rfis
    FOR EACH ROW EXECUTE FUNCTION stablepay.rfi_deadline();
CREATE INDEX rfis_issued ON stablepay.rfis (server, deadline) WHERE status = 'issued' AND imported_by IS NULL;

-- --- importing a local record: one function, as the owner, every row stamped with the importer ------------------

CREATE FUNCTION stablepay.import_local(source text, payload jsonb) RETURNS jsonb LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    importer text := stablepay.caller();
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

REVOKE ALL ON ALL TABLES IN SCHEMA stablepay FROM stablepay_analyst, stablepay_lead, stablepay_watcher, PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA stablepay FROM PUBLIC;

GRANT SELECT ON ALL TABLES IN SCHEMA stablepay TO stablepay_analyst, stablepay_watcher;
GRANT INSERT (profile, environment, action, target, outcome, detail, server) ON stablepay.audit
    TO stablepay_analyst, stablepay_watcher;
GRANT INSERT (server, rfi_id, profile, text) ON stablepay.notes TO stablepay_analyst;
GRANT INSERT (server, rfi_id, profile, until), UPDATE (profile, until), DELETE ON stablepay.claims
    TO stablepay_analyst;
GRANT INSERT, UPDATE ON stablepay.rfis, stablepay.rounds, stablepay.statuses, stablepay.sweeps TO stablepay_watcher;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA stablepay TO stablepay_watcher;
GRANT EXECUTE ON FUNCTION stablepay.import_local(text, jsonb) TO stablepay_analyst;
GRANT EXECUTE ON FUNCTION stablepay.ascii_json(text), stablepay.is_owner(), stablepay.caller(),
    stablepay.entry_hash(text, bigint, text, text, text, text, text, text, text, text),
    stablepay.note_author(), stablepay.claim_holder(), stablepay.audit_stamp(), stablepay.fact_writer(),
    stablepay.sweep_stamp(), stablepay.tell(), stablepay.append_only(), stablepay.rfi_deadline()
    TO stablepay_analyst, stablepay_watcher;
