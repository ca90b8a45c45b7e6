-- Indexes of GET /v0/invoices (docs/invoices.md). Every index
-- is partial on the visible invoices, the only rows the API ever reads, and
-- leads with the organization: one organization's list never reads another's.

-- One b-tree per sort key, and one per sort key with status after the
-- organization: ORDER BY key, id (either direction) then reads the page
-- straight off the index, with or without a status filter, and stops after
-- skip + take + 1 rows. The id column makes the tie-break part of the order.
-- Not safe on a large invoices table: the build blocks writes to it until the
-- migration commits.
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_list_created_idx ON invoices (organization_id, created_at, id)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
-- As the first index of this file: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_list_updated_idx ON invoices (organization_id, updated_at, id)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
-- As the first index of this file: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_list_due_idx ON invoices (organization_id, due_date, id)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
-- As the first index of this file: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_list_status_created_idx ON invoices (organization_id, status, created_at, id)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
-- As the first index of this file: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_list_status_updated_idx ON invoices (organization_id, status, updated_at, id)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
-- As the first index of this file: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_list_status_due_idx ON invoices (organization_id, status, due_date, id)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');

-- Search terms with a run of three letters or digits: trigrams of the one
-- combined, lower-cased search_text. GIN indexes keep fastupdate with a
-- small pending list: bulk writes stay fast, and no search (nor the
-- planner's estimate of it) has to read more than 256 kB of unmerged entries.
-- As the first index of this file: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_search_trgm_idx ON invoices USING gin (search_text gin_trgm_ops) WITH (gin_pending_list_limit = 256)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');

-- Terms pg_trgm cannot look up (one or two characters, punctuation; see
-- docs/invoices.md): every character and every pair of adjacent characters
-- of search_text, computed for the index only (never stored in the table).
-- The pairs come from two passes that cut the text into two-character
-- chunks, from its first and from its second character, with a unit
-- separator (U+001F: a control character, which search terms never hold).
-- Duplicates are fine: GIN keeps each key once per row.
CREATE FUNCTION invoice_search_grams(t text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN array_remove(
        string_to_array(t, NULL)
            || string_to_array(regexp_replace(t, '(..)', E'\\1\x1f', 'g'), E'\x1f')
            || string_to_array(regexp_replace(substr(t, 2), '(..)', E'\\1\x1f', 'g'), E'\x1f'),
        '');
-- As the first index of this file: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_search_grams_idx ON invoices USING gin (invoice_search_grams(search_text)) WITH (gin_pending_list_limit = 256)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
-- The planner ignores the statistics of a partial index's expression, so
-- they are not gathered (they would cost ANALYZE a second evaluation of the
-- function on every sampled row); a statistics object gives it the
-- frequency of each gram instead: a common gram then reads the ordered index
-- and stops early, a rare one ("ø") looks its few rows up in the GIN index.
ALTER INDEX invoices_search_grams_idx ALTER COLUMN 1 SET STATISTICS 0;
CREATE STATISTICS invoices_search_grams_stats ON (invoice_search_grams(search_text)) FROM invoices;

-- search_text values are all different, so the selectivity of LIKE comes
-- from the histogram: a finer one tells common terms (read the ordered
-- index and stop early) from rare ones (look them up in the GIN index).
ALTER TABLE invoices ALTER COLUMN search_text SET STATISTICS 1000;
