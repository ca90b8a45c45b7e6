-- The gram index (0002) holds the grams as lexemes of a tsvector instead of
-- the elements of a text[] (docs/invoices.md, "Short search terms"). Same keys,
-- same lookups; what changes is the cost of writing an invoice: GIN sorts
-- each row's keys and compares them again while merging its pending list,
-- and text[] elements compare in the database's collation (strcoll per
-- comparison), while lexemes compare as bytes. Writing 1,000 invoices took
-- 460-500 ms instead of 530-560 ms at a million invoices (docs/benchmarks.md,
-- billing's fifth round); a search looks the term's grams up as a tsquery
-- of lexemes joined by & (invoices.go, gramQuery).
--
-- Building the index reads every visible invoice, with invoices locked
-- against writes until the migration commits: 1 min 30 s at a million
-- invoices on the benchmark machine. The statistics object is rebuilt empty: the
-- planner estimates a gram as rare (the GIN lookup) until the next ANALYZE,
-- which autovacuum runs; common short terms never reach the lookup anyway
-- (step 1 of the search fills their page first).
DROP STATISTICS invoices_search_grams_stats;
-- Not safe on a large invoices table: ACCESS EXCLUSIVE on invoices (every read and
-- finalization waits) until the build below commits, 1 min 30 s at a million invoices.
-- Applied already: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-deletion
DROP INDEX invoices_search_grams_idx;
-- Still under the ACCESS EXCLUSIVE lock of the drop above: see there.
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX invoices_search_grams_idx ON invoices
    USING gin (array_to_tsvector(invoice_search_grams(search_text))) WITH (gin_pending_list_limit = 256)
    WHERE deleted_at IS NULL AND status IN ('unpaid', 'pending_payment', 'paid', 'cancelled', 'refunded', 'collecting');
ALTER INDEX invoices_search_grams_idx ALTER COLUMN 1 SET STATISTICS 0;
CREATE STATISTICS invoices_search_grams_stats ON (array_to_tsvector(invoice_search_grams(search_text))) FROM invoices;
