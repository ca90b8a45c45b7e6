-- GET /v0/shipments?status=… (docs/shipments.md): one organization's shipments of
-- one status, newest first, read straight off the index and stopped after
-- skip + take + 1 rows. Without a status filter the list uses
-- shipments_organization_created_idx of 0001.
CREATE INDEX shipments_organization_status_created_idx ON shipments (organization_id, status, created_at DESC, id DESC);
