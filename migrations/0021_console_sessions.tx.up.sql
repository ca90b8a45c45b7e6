-- The operator's console's sessions and one-time sign-in links
-- (docs/console.md). Each row is keyed by the SHA-256 of its secret: the
-- random value of the session's cookie, or the token of the link. The
-- database never holds either value.
--
-- A session ends by logout or revocation (its row is deleted), or by a
-- timeout the service checks at each request: idle 30 minutes after
-- last_used_at, absolute 12 hours after started_at (a row found past either
-- is deleted then).
CREATE TABLE console_sessions (
    id_hash      bytea       PRIMARY KEY CHECK (octet_length(id_hash) = 32),
    subject      text        NOT NULL CHECK (subject <> ''),
    email        text        NOT NULL DEFAULT '',
    role         text        NOT NULL CHECK (role IN ('viewer', 'ops', 'billing', 'admin')),
    started_at   timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL
);

-- `console sessions revoke --subject NAME` ends a subject's sessions.
CREATE INDEX console_sessions_subject_idx ON console_sessions (subject);

-- A sign-in link (sandbox only) is used once: used_at is set by the one
-- UPDATE that finds it NULL.
CREATE TABLE console_signin_links (
    token_hash bytea       PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    subject    text        NOT NULL CHECK (subject <> ''),
    role       text        NOT NULL CHECK (role IN ('viewer', 'ops', 'billing', 'admin')),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
    used_at    timestamptz
);
