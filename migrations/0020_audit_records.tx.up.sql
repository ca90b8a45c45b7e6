-- The audit log of the operators' actions (docs/audit.md): one row per
-- action, written in the action's own transaction (or, for an action refused
-- or failed, in one of its own after the action's was rolled back).
--
-- seq orders the rows as they were written; at is the service's clock at the
-- action. actor_subject is the console's OIDC subject or the command's
-- --actor (else cli:<OS user>), actor_email the console's e-mail (NULL from a
-- command). organization_id is '' when the action names none that exists (a
-- revoke of an unknown key). input is the action's arguments, never a secret.
-- outcome is done, unchanged, forbidden or the error's code. trace_id is the
-- action's trace, '' when it ran without one.
CREATE TABLE audit_records (
    seq             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              text        NOT NULL UNIQUE,
    at              timestamptz NOT NULL,
    actor_subject   text        NOT NULL CHECK (actor_subject <> ''),
    actor_email     text,
    action          text        NOT NULL,
    organization_id text        NOT NULL,
    input           jsonb       NOT NULL CHECK (jsonb_typeof(input) = 'object'),
    outcome         text        NOT NULL CHECK (outcome ~ '^[a-z][a-z_]*$'),
    trace_id        text        NOT NULL
);

-- `audit list` reads oldest first, by organization, by actor, or all from a time.
CREATE INDEX audit_records_at_idx ON audit_records (at, seq);
CREATE INDEX audit_records_organization_idx ON audit_records (organization_id, at, seq);
CREATE INDEX audit_records_actor_idx ON audit_records (actor_subject, at, seq);

-- The log is append-only: the service never updates, deletes or truncates a
-- record, and the table refuses it from anyone (a role owning it included)
-- until this migration is rolled back.
CREATE FUNCTION audit_records_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit records are never changed: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_records_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_records
    FOR EACH ROW EXECUTE FUNCTION audit_records_refuse_change();
CREATE TRIGGER audit_records_no_truncate BEFORE TRUNCATE ON audit_records
    FOR EACH STATEMENT EXECUTE FUNCTION audit_records_refuse_change();
