DROP TABLE audit_records;
DROP FUNCTION audit_records_refuse_change();
