-- The team record, version 7: the provider's webhook deliveries the team watcher took (`rfis watch --webhooks`).
--
-- Run by `record init` as the owner, in one transaction. What changes:
-- - `stablepay.webhook_events` keeps one row per delivery taken: the server it was about, the provider's
--   `eventId` (unique per server: a retried delivery, or the same one sent to a second watcher behind the
--   same proxy, is taken once, whichever process gets it), its type, when it came, who took it and what
--   it led to (a short JSON summary). The watcher inserts it in the same transaction as the facts the
--   delivery led to, so an acknowledged delivery is a recorded one;
-- - only stablepay_watcher writes it (and prunes it: the history is bounded, 30 days and 100,000 rows a
--   server); everyone of the team reads it. Who and when are the database's, whatever the insert says;
-- - each delivery taken is announced to the consoles (LISTEN stablepay_record, kind `deliveries`): they read
--   again what the watcher's facts feed (the banner's count, the needs-action view).
-- A file that shipped is never edited: a change is the next numbered file.

CREATE TABLE stablepay.webhook_events (
    server      text NOT NULL,
    event_id    text NOT NULL CHECK (length(event_id) BETWEEN 1 AND 200),
    event_type  text NOT NULL CHECK (length(event_type) BETWEEN 1 AND 80),
    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    by_role     text NOT NULL DEFAULT current_user,
    led_to      text NOT NULL CHECK (length(led_to) <= 2000),
    PRIMARY KEY (server, event_id)
);
CREATE INDEX webhook_events_by_time ON stablepay.webhook_events (server, received_at);

CREATE FUNCTION stablepay.webhook_event_taken() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    NEW.received_at := clock_timestamp();
    NEW.by_role := current_user;
    RETURN NEW;
END $$;
CREATE TRIGGER webhook_events_taken BEFORE INSERT ON stablepay.webhook_events
    FOR EACH ROW EXECUTE FUNCTION stablepay.webhook_event_taken();

CREATE FUNCTION stablepay.tell_delivery() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pg_notify('stablepay_record', json_build_object(
        'kind', 'deliveries', 'op', 'insert', 'server', left(NEW.server, 2000), 'rfi', '', 'who', current_user)::text);
    RETURN NULL;
END $$;
CREATE TRIGGER webhook_events_tell AFTER INSERT ON stablepay.webhook_events
    FOR EACH ROW EXECUTE FUNCTION stablepay.tell_delivery();

REVOKE ALL ON stablepay.webhook_events FROM PUBLIC;
GRANT SELECT ON stablepay.webhook_events TO stablepay_analyst, stablepay_watcher;
GRANT INSERT, DELETE ON stablepay.webhook_events TO stablepay_watcher;
