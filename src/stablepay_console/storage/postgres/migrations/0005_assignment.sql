-- The team record, version 5: a lead assigns a request to an analyst.
--
-- Run by `record init` as the owner, in one transaction. What changes:
-- - an assignment is a claim held by the analyst and made by a lead: `claims.assigned_by` names the lead, the
--   claim log keeps it as `assign` (`by_role`: the lead), and its audit entry, `triage.assign`, is written by the
--   database with it (typed alone it is refused, as every `triage.` entry is);
-- - only `stablepay.assign()` makes one, and it allows a member of stablepay_lead only; the analyst must be a
--   person of the team (`stablepay.team_analysts()`: a login, member of stablepay_analyst, not a superuser, not a
--   login acting for others). Assigning a request someone holds takes it from them (the console asks first);
--   a closed request is not assigned;
-- - an analyst's own claim, or their extending an assigned one, never names a lead: only the owner (inside
--   `assign()`) sets `assigned_by`, which no member may write.
-- A file that shipped is never edited: a change is the next numbered file.

ALTER TABLE stablepay.claims ADD COLUMN assigned_by text;
ALTER TABLE stablepay.claim_log DROP CONSTRAINT claim_log_op_check;
ALTER TABLE stablepay.claim_log ADD CONSTRAINT claim_log_op_check
    CHECK (op IN ('claim', 'take over', 'extend', 'release', 'assign'));

-- --- the team's analysts: the people a request may be assigned to ----------------------------------------------

CREATE FUNCTION stablepay.team_analysts() RETURNS TABLE (analyst text, is_lead boolean) LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp AS $$
    SELECT r.rolname::text, pg_has_role(r.oid, 'stablepay_lead', 'MEMBER')
    FROM pg_roles r
    WHERE r.rolcanlogin AND NOT r.rolsuper AND pg_has_role(r.oid, 'stablepay_analyst', 'MEMBER')
      -- a login granted another login acts for people (the web server's authenticator): it is nobody itself
      AND NOT EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles p ON p.oid = m.roleid
                      WHERE m.member = r.oid AND p.rolcanlogin)
    ORDER BY 1
$$;

-- --- who holds a claim: the person, or the analyst a lead assigned it to ------------------------------------------

CREATE OR REPLACE FUNCTION stablepay.claim_holder() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    me text := stablepay.person();
    assignee text := coalesce(current_setting('stablepay.assigning', true), '');
BEGIN
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    -- only inside stablepay.assign(), which runs as the owner and has checked the lead and the analyst
    IF stablepay.is_owner() AND assignee <> '' THEN
        NEW.claimant := assignee;
        NEW.assigned_by := me;
        NEW.at := clock_timestamp();
        NEW.until := NULL;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.claimant = me THEN
        NEW.at := OLD.at;  -- extending your own claim keeps its start, and who assigned it
        NEW.assigned_by := OLD.assigned_by;
    ELSE
        NEW.at := clock_timestamp();
        NEW.assigned_by := NULL;
    END IF;
    NEW.claimant := me;
    RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION stablepay.claim_act() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
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
    -- Only assign() sets assigned_by with a new start: a member's own claim has none, and extending an assigned
    -- claim keeps both (whatever a session's settings say).
    IF NEW.assigned_by IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.at IS DISTINCT FROM OLD.at) THEN
        op := 'assign';
    ELSE
        op := CASE WHEN TG_OP = 'INSERT' THEN 'claim' WHEN OLD.claimant = NEW.claimant THEN 'extend'
              ELSE 'take over' END;
    END IF;
    INSERT INTO stablepay.claim_log (server, rfi_id, op, claimant, by_role, at, until)
    VALUES (NEW.server, NEW.rfi_id, op, NEW.claimant, me, clock_timestamp(), NEW.until);
    IF op = 'assign' THEN
        outcome := 'assigned to ' || NEW.claimant || CASE
            WHEN TG_OP = 'UPDATE' AND OLD.claimant <> NEW.claimant THEN ' (taken from ' || OLD.claimant || ')'
            ELSE '' END;
        PERFORM stablepay.act_entry(NEW.server, NEW.profile, 'triage.assign', NEW.rfi_id, outcome,
            jsonb_strip_nulls(jsonb_build_object('analyst', NEW.claimant,
                'previous', CASE WHEN TG_OP = 'UPDATE' AND OLD.claimant <> NEW.claimant THEN OLD.claimant END)));
        RETURN NULL;
    END IF;
    outcome := CASE op WHEN 'claim' THEN 'claimed' WHEN 'extend' THEN 'claimed (extended)'
               ELSE 'claimed (took over from ' || OLD.claimant || ')' END;
    PERFORM stablepay.act_entry(NEW.server, NEW.profile, 'claim', NEW.rfi_id, outcome,
                                jsonb_strip_nulls(jsonb_build_object('until', NEW.until)));
    RETURN NULL;
END $$;

-- --- assigning ------------------------------------------------------------------------------------------------

CREATE FUNCTION stablepay.assign(at_server text, at_profile text, at_rfi text, analyst text)
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
    PERFORM pg_advisory_xact_lock(hashtextextended(at_server || ' ' || at_rfi, 1397772371));  -- as a step takes
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

REVOKE ALL ON FUNCTION stablepay.team_analysts(), stablepay.assign(text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION stablepay.team_analysts(), stablepay.assign(text, text, text, text)
    TO stablepay_analyst, stablepay_watcher;
