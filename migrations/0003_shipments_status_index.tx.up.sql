-- GET /v0/shipments?status=… (docs/shipments.md): one organization's shipments of
-- one status, newest first, read straight off the index and stopped after
-- skip + take + 1 rows. Without a status filter the list uses
-- shipments_organization_created_idx of 0001.
-- Not safe on a large shipments table: the build blocks writes to it until the
-- migration commits (the intake's shipment inserts wait).
-- Applied already; before such an upgrade: docs/migrations.md, "Upgrading a large installation".
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX shipments_organization_status_created_idx ON shipments (organization_id, status, created_at DESC, id DESC);
