-- Back to the fee columns of rate_cards, which this release kept writing
-- beside the rows (0024's up): a fee that has no column is lost with its
-- rows.
DROP TRIGGER rate_card_fees_from_columns ON rate_cards;
DROP FUNCTION rate_card_fees_from_columns();
DROP TABLE rate_card_fees;
