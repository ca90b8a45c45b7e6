-- Search terms of several words (docs/invoices.md, "Terms of several
-- words"). pg_trgm drops separators: "storage kitting" in search_text gives
-- the trigrams of two words that are common apart, and the trigram index
-- returned every invoice holding both. search_fill is search_text with each
-- run of characters other than a-z, 0-9 and the newline between fields
-- replaced by one 'q' ("storageqkitting"), so that trigrams span the
-- junction between words ("geq", "eqk", "qki": rare together). The
-- repository computes the same transformation of a term in Go (fillOf) and
-- looks up the junctions in this column's trigram index; strpos on
-- search_text decides, so the filler colliding with a real 'q' or with
-- another separator never changes an answer. It replaces the trigram index
-- on search_text, which nothing reads any more.
--
-- Adding a stored column rewrites the table and rebuilds its indexes: at
-- 1,000,000 invoices this migration took 6 minutes on the benchmark
-- machine, invoices locked throughout (docs/invoices.md says how to do it
-- without the long lock). 0006 then vacuums the table, since a rewritten
-- table has an empty visibility map and would serve index-only scans from
-- the heap.
-- Not safe on a large invoices table: ACCESS EXCLUSIVE on invoices (reads too) until the
-- migration commits, after the rewrite below.
-- Applied already: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-deletion
DROP INDEX invoices_search_trgm_idx;
ALTER TABLE invoices ADD COLUMN search_fill text NOT NULL
    -- Not safe on a large invoices table: a stored generated column rewrites the table
    -- (6 min at a million invoices, all access blocked).
    -- Applied already: docs/migrations.md, "Upgrading a large installation".
    -- squawk-ignore adding-field-with-default
    GENERATED ALWAYS AS (regexp_replace(search_text, '[^0-9a-z\n]+', 'q', 'g')) STORED;
-- Not safe on a large invoices table: the build blocks writes to it until the
-- migration commits.
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_search_fill_trgm_idx ON invoices USING gin (search_fill gin_trgm_ops) WITH (gin_pending_list_limit = 256)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
-- As for search_text (0002): the estimate of a pattern comes from the
-- histogram, which must tell a term in 1% of the invoices (walk the ordered
-- index) from one in 0.01% (look it up in the trigram index). Gathered now:
-- without statistics every pattern would be estimated rare and looked up
-- in the index, common ones too, until autovacuum analyzed the table.
ALTER TABLE invoices ALTER COLUMN search_fill SET STATISTICS 1000;
ANALYZE invoices (search_fill);
