DROP TRIGGER billing_charge_days_truncate ON billing_charges;
DROP TRIGGER billing_charge_days_delete ON billing_charges;
DROP TRIGGER billing_charge_days_update ON billing_charges;
DROP TRIGGER billing_charge_days_insert ON billing_charges;
DROP FUNCTION billing_charge_days_truncate();
DROP FUNCTION billing_charge_days_apply();
DROP TABLE billing_charge_days;
