DROP TABLE billing_accounts;
