package e2e

// The billing fixture that tests of several end-to-end packages seed.

const (
	BillE2EOrg = "org_e2e_bill"
	BillE2EWH  = "wh_e2e_bill"
	BillE2EKey = "fk_test_E2EbillingAaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)

// BillE2ECard is the example card of docs/billing.md from the first day of
// the current month (UTC), so that the period the test closes is open.
func BillE2ECard(from string) map[string]any {
	return map[string]any{"organizationId": BillE2EOrg, "effectiveFrom": from,
		"fees": map[string]int64{"pick_pack_order": 250, "pick_pack_unit": 40, "spd_carton": 400, "receiving_unit": 15,
			"receiving_carton": 120, "storage_unit_month": 30, "storage_carton_month": 450, "minimum_monthly": 5000},
		"services": map[string]any{"kitting": map[string]any{"title": "Kitting", "unitCost": 75},
			"labor_hour": map[string]any{"title": "Labour", "unitCost": 4500}}}
}
