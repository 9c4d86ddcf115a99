-- The team record, version 1. Run by `stablepay-console record init` as the database owner, in one
-- transaction, after the group roles stablepay_analyst and stablepay_lead exist. A file that shipped
-- is never edited: a change is the next numbered file.

CREATE SCHEMA stablepay;
REVOKE ALL ON SCHEMA stablepay FROM PUBLIC;
GRANT USAGE ON SCHEMA stablepay TO stablepay_analyst;

CREATE TABLE stablepay.schema_version (
    single  boolean PRIMARY KEY DEFAULT true CHECK (single),
    version integer NOT NULL
);
INSERT INTO stablepay.schema_version (single, version) VALUES (true, 0);

-- What consoles saw of each request, keyed by the API server ("production https://api.example").
CREATE TABLE stablepay.rfis (
    server      text NOT NULL,
    rfi_id      text NOT NULL,
    environment text NOT NULL,
    status      text NOT NULL,
    fingerprint text NOT NULL,
    wire        text NOT NULL,
    status_row  bigint,
    round_row   bigint,
    first_seen  text NOT NULL,
    last_seen   text NOT NULL,
    PRIMARY KEY (server, rfi_id)
);
CREATE TABLE stablepay.rounds (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server       text NOT NULL,
    rfi_id       text NOT NULL,
    round_no     integer NOT NULL,
    round_id     text NOT NULL,
    fingerprint  text NOT NULL,
    issued_at    text NOT NULL,
    expires_at   text,
    submitted_at text,
    link         text,
    wire         text NOT NULL,
    first_seen   text NOT NULL,
    last_seen    text NOT NULL
);
CREATE INDEX rounds_of_rfi ON stablepay.rounds (server, rfi_id, first_seen, id);
CREATE TABLE stablepay.statuses (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server     text NOT NULL,
    rfi_id     text NOT NULL,
    status     text NOT NULL,
    first_seen text NOT NULL,
    last_seen  text NOT NULL
);
CREATE INDEX statuses_of_rfi ON stablepay.statuses (server, rfi_id, first_seen, id);

-- Notes: the author is the role that wrote it, the time the database's (a trigger sees to both).
CREATE TABLE stablepay.notes (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server        text NOT NULL,
    rfi_id        text NOT NULL,
    profile       text NOT NULL DEFAULT '',
    author        text NOT NULL DEFAULT current_user,
    at            timestamptz NOT NULL DEFAULT clock_timestamp(),
    text          text NOT NULL,
    imported_from text,
    imported_key  text UNIQUE,
    imported_by   text
);
CREATE INDEX notes_of_rfi ON stablepay.notes (server, rfi_id, at, id);

-- Claims: one holder per request; `until` (optional) is when it lapses.
CREATE TABLE stablepay.claims (
    server   text NOT NULL,
    rfi_id   text NOT NULL,
    profile  text NOT NULL DEFAULT '',
    claimant text NOT NULL DEFAULT current_user,
    at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    until    timestamptz,
    PRIMARY KEY (server, rfi_id)
);

-- The audit log: one hash chain for the team. Its head is kept beside it, moved only by the
-- owner's trigger, so a cut-off tail shows; an entry that does not follow the chain is refused.
CREATE TABLE stablepay.audit (
    seq           bigint PRIMARY KEY,
    at            text NOT NULL,
    actor         text NOT NULL,
    profile       text NOT NULL,
    environment   text NOT NULL,
    action        text NOT NULL,
    target        text NOT NULL,
    outcome       text NOT NULL,
    detail        text NOT NULL,
    prev_hash     text NOT NULL,
    hash          text NOT NULL,
    server        text NOT NULL DEFAULT '',
    imported_from text,
    imported_hash text UNIQUE,
    imported_by   text
);
CREATE INDEX audit_by_target ON stablepay.audit (target, seq);
CREATE INDEX audit_by_server ON stablepay.audit (server, seq);
CREATE INDEX audit_by_time ON stablepay.audit (at);
CREATE TABLE stablepay.audit_head (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    count bigint NOT NULL,
    hash  text NOT NULL
);
INSERT INTO stablepay.audit_head (single, count, hash)
VALUES (true, 0, '0000000000000000000000000000000000000000000000000000000000000000');

-- The team watcher (`rfis watch` in team mode): when it last swept each server, and what it found.
CREATE TABLE stablepay.sweeps (
    server      text PRIMARY KEY,
    swept_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    interval_s  integer NOT NULL,
    by_role     text NOT NULL DEFAULT current_user,
    radar       text NOT NULL
);

-- Who did it: the role, never a typed name. Imported rows keep their author and say who imported them.
CREATE FUNCTION stablepay.note_author() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.imported_from IS NULL THEN
        NEW.author := current_user;
        NEW.at := clock_timestamp();
        NEW.imported_key := NULL;
        NEW.imported_by := NULL;
    ELSE
        NEW.imported_by := current_user;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER notes_author BEFORE INSERT ON stablepay.notes FOR EACH ROW EXECUTE FUNCTION stablepay.note_author();

CREATE FUNCTION stablepay.claim_holder() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.claimant = current_user THEN
        NEW.at := OLD.at;  -- extending your own claim keeps its start
    ELSE
        NEW.at := clock_timestamp();
    END IF;
    NEW.claimant := current_user;
    RETURN NEW;
END $$;
CREATE TRIGGER claims_holder BEFORE INSERT OR UPDATE ON stablepay.claims
    FOR EACH ROW EXECUTE FUNCTION stablepay.claim_holder();

CREATE FUNCTION stablepay.audit_actor() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.imported_from IS NULL THEN
        IF NEW.actor IS DISTINCT FROM current_user::text THEN
            RAISE EXCEPTION 'the actor of an audit entry is the role that writes it (%), not %', current_user, NEW.actor
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        NEW.imported_hash := NULL;
        NEW.imported_by := NULL;
    ELSE
        NEW.imported_by := current_user;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER audit_1_actor BEFORE INSERT ON stablepay.audit FOR EACH ROW EXECUTE FUNCTION stablepay.audit_actor();

-- Each entry must follow the one before it (entry seq - 1, or the genesis hash for entry 1), so the
-- chain can only grow at its end; the head moves once per statement, to the last entry added.
CREATE FUNCTION stablepay.audit_follows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    before_hash text;
BEGIN
    IF NEW.seq = 1 THEN
        before_hash := '0000000000000000000000000000000000000000000000000000000000000000';
    ELSE
        SELECT hash INTO before_hash FROM stablepay.audit WHERE seq = NEW.seq - 1;
    END IF;
    IF before_hash IS NULL OR NEW.prev_hash IS DISTINCT FROM before_hash THEN
        RAISE EXCEPTION 'audit entry % does not follow the chain: entry % %', NEW.seq, NEW.seq - 1,
            CASE WHEN before_hash IS NULL THEN 'is missing' ELSE 'has another hash' END
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION stablepay.audit_follows() FROM PUBLIC;
CREATE TRIGGER audit_2_chain BEFORE INSERT ON stablepay.audit FOR EACH ROW EXECUTE FUNCTION stablepay.audit_follows();

CREATE FUNCTION stablepay.audit_move_head() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    UPDATE stablepay.audit_head AS head SET count = last.seq, hash = last.hash
    FROM (SELECT seq, hash FROM added ORDER BY seq DESC LIMIT 1) AS last
    WHERE head.single AND last.seq > head.count;
    RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION stablepay.audit_move_head() FROM PUBLIC;
CREATE TRIGGER audit_3_head AFTER INSERT ON stablepay.audit REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION stablepay.audit_move_head();

CREATE FUNCTION stablepay.append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_no_change BEFORE UPDATE OR DELETE ON stablepay.audit
    FOR EACH ROW EXECUTE FUNCTION stablepay.append_only();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON stablepay.audit
    FOR EACH STATEMENT EXECUTE FUNCTION stablepay.append_only();
CREATE TRIGGER audit_head_no_truncate BEFORE TRUNCATE ON stablepay.audit_head
    FOR EACH STATEMENT EXECUTE FUNCTION stablepay.append_only();

-- Live: consoles LISTEN on stablepay_record and hear of every note and claim change.
CREATE FUNCTION stablepay.tell() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed record;
BEGIN
    IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
    PERFORM pg_notify('stablepay_record', json_build_object(
        'kind', TG_TABLE_NAME, 'op', lower(TG_OP), 'server', left(changed.server, 2000),
        'rfi', left(changed.rfi_id, 120), 'who', current_user)::text);
    RETURN NULL;
END $$;
CREATE TRIGGER notes_tell AFTER INSERT ON stablepay.notes FOR EACH ROW EXECUTE FUNCTION stablepay.tell();
CREATE TRIGGER claims_tell AFTER INSERT OR UPDATE OR DELETE ON stablepay.claims
    FOR EACH ROW EXECUTE FUNCTION stablepay.tell();

-- Who may do what is the database's to say. Claims: your own, or a lapsed one; a lead's, anyone's.
ALTER TABLE stablepay.claims ENABLE ROW LEVEL SECURITY;
CREATE POLICY claims_read ON stablepay.claims FOR SELECT USING (true);
CREATE POLICY claims_take ON stablepay.claims FOR INSERT WITH CHECK (claimant = current_user);
CREATE POLICY claims_take_over ON stablepay.claims FOR UPDATE
    USING (claimant = current_user OR until <= now()) WITH CHECK (claimant = current_user);
CREATE POLICY claims_release ON stablepay.claims FOR DELETE
    USING (claimant = current_user OR until <= now() OR pg_has_role(current_user, 'stablepay_lead', 'MEMBER'));

REVOKE ALL ON ALL TABLES IN SCHEMA stablepay FROM PUBLIC;
GRANT SELECT ON stablepay.schema_version, stablepay.audit_head TO stablepay_analyst;
GRANT SELECT, INSERT, UPDATE ON stablepay.rfis, stablepay.rounds, stablepay.statuses TO stablepay_analyst;
GRANT SELECT, INSERT ON stablepay.notes TO stablepay_analyst;
GRANT SELECT, INSERT, UPDATE, DELETE ON stablepay.claims TO stablepay_analyst;
GRANT SELECT, INSERT ON stablepay.audit TO stablepay_analyst;
REVOKE UPDATE, DELETE, TRUNCATE ON stablepay.audit FROM stablepay_analyst, stablepay_lead;
GRANT SELECT, INSERT, UPDATE ON stablepay.sweeps TO stablepay_analyst;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA stablepay TO stablepay_analyst;
