package postgres

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

// TestOperation: a statement's span is named by its declared command
// (statement), the command its text runs: checked here against operation,
// the parser that named the spans before the statements declared it.
func TestOperation(t *testing.T) {
	for _, tt := range []struct{ sql, want string }{
		{"SELECT 1", "SELECT"},
		{"\n\tupdate order_receipts SET status = $1", "UPDATE"},
		{"WITH x AS (SELECT 1) DELETE FROM t", "DELETE"},
	} {
		if got := operation(tt.sql); got != tt.want {
			t.Errorf("operation(%.40q) = %s, want %s", tt.sql, got, tt.want)
		}
	}
	for _, tt := range []struct {
		s    statement
		want string
	}{
		{claimOrderSQL, "SELECT"},
		{createPickPackSQL, "INSERT"},
		{acceptOrderSQL, "UPDATE"},
		{recordFailureSQL, "INSERT"},
		{invoiceLists[ports.InvoicesByCreatedAt][0].shortTerm, "SELECT"},
	} {
		if got := tt.s.command(); got != tt.want || operation(tt.s.sql()) != tt.want {
			t.Errorf("%.40q: declared %s, runs %s, want %s", tt.s.sql(), got, operation(tt.s.sql()), tt.want)
		}
	}
}

// TestDeclaredCommands: every statement is declared with the command its
// text runs, the name of its span.
func TestDeclaredCommands(t *testing.T) {
	all := map[string]statement{
		"acceptOrderSQL":                  acceptOrderSQL,
		"acceptOrderWithEventSQL":         acceptOrderWithEventSQL,
		"accrueAllStorageSQL":             accrueAllStorageSQL,
		"accrueReceiptSQL":                accrueReceiptSQL,
		"accrueServiceSQL":                accrueServiceSQL,
		"accrueShipmentSQL":               accrueShipmentSQL,
		"accrueStorageSQL":                accrueStorageSQL,
		"activeWarehouseSQL":              activeWarehouseSQL,
		"activeWarehousesSQL":             activeWarehousesSQL,
		"addOperatorChargeSQL":            addOperatorChargeSQL,
		"availableWarehousesSQL":          availableWarehousesSQL,
		"carriedForwardSQL":               carriedForwardSQL,
		"carryCreditsSQL":                 carryCreditsSQL,
		"catchUpLockSQL":                  catchUpLockSQL,
		"catchUpReceiptsSQL":              catchUpReceiptsSQL,
		"catchUpServicesSQL":              catchUpServicesSQL,
		"catchUpShipmentsSQL":             catchUpShipmentsSQL,
		"claimEventsSQL":                  claimEventsSQL,
		"claimOrderSQL":                   claimOrderSQL,
		"closedUntilSQL":                  closedUntilSQL,
		"collectSQL":                      collectSQL,
		"createAPIKeySQL":                 createAPIKeySQL,
		"createPickPackSQL":               createPickPackSQL,
		"createReceiptSQL":                createReceiptSQL,
		"createSPDSQL":                    createSPDSQL,
		"createServiceSQL":                createServiceSQL,
		"deleteEventsSQL":                 deleteEventsSQL,
		"duePeriodsSQL":                   duePeriodsSQL,
		"failedOrderStatsSQL":             failedOrderStatsSQL,
		"finalizePeriodsSQL":              finalizePeriodsSQL,
		"findAPIKeySQL":                   findAPIKeySQL,
		"finishReceiptSQL":                finishReceiptSQL,
		"forgetChargesSQL":                forgetChargesSQL,
		"getReceiptSQL":                   getReceiptSQL,
		"getReceiptWithPayloadSQL":        getReceiptWithPayloadSQL,
		"getShipmentSQL":                  getShipmentSQL,
		"insertAPIKeySQL":                 insertAPIKeySQL,
		"insertBilledInvoicesSQL":         insertBilledInvoicesSQL,
		"insertBilledItemsSQL":            insertBilledItemsSQL,
		"insertEventsSQL":                 insertEventsSQL,
		"insertInvoiceChargesSQL":         insertInvoiceChargesSQL,
		"insertInvoiceItemsSQL":           insertInvoiceItemsSQL,
		"insertInvoicesSQL":               insertInvoicesSQL,
		"insertOrganizationsSQL":          insertOrganizationsSQL,
		"insertShipmentCartonsSQL":        insertShipmentCartonsSQL,
		"insertShipmentItemsSQL":          insertShipmentItemsSQL,
		"insertShipmentSQL":               insertShipmentSQL,
		"insertWarehouseOrganizationsSQL": insertWarehouseOrganizationsSQL,
		"insertWarehouseSQL":              insertWarehouseSQL,
		"insertWebhookSecretsSQL":         insertWebhookSecretsSQL,
		"invoiceChargesSQL":               invoiceChargesSQL,
		"invoiceDetailSQL":                invoiceDetailSQL,
		"invoiceItemsSQL":                 invoiceItemsSQL,
		"invoiceStatusSQL":                invoiceStatusSQL,
		"listAtWarehouseSQL":              listAtWarehouseSQL,
		"listKeptSQL":                     listKeptSQL,
		"listReceiptsSQL":                 listReceiptsSQL,
		"listShipmentsByStatusSQL":        listShipmentsByStatusSQL,
		"listShipmentsSQL":                listShipmentsSQL,
		"lockBillingSQL":                  lockBillingSQL,
		"lockOpenManySQL":                 lockOpenManySQL,
		"lockOpenPeriodSQL":               lockOpenPeriodSQL,
		"lockShipmentAtWarehouseSQL":      lockShipmentAtWarehouseSQL,
		"lockShipmentSQL":                 lockShipmentSQL,
		"lockStorageBillingSQL":           lockStorageBillingSQL,
		"minimumsSQL":                     minimumsSQL,
		"moveCatchUpSQL":                  moveCatchUpSQL,
		"moveStockSQL":                    moveStockSQL,
		"nextKeysSQL":                     nextKeysSQL,
		"offboardSQL":                     offboardSQL,
		"oldestOverdueSQL":                oldestOverdueSQL,
		"onHandAtSQL":                     onHandAtSQL,
		"openNextPeriodsSQL":              openNextPeriodsSQL,
		"openPeriodSQL":                   openPeriodSQL,
		"organizationKeysSQL":             organizationKeysSQL,
		"organizationSQL":                 organizationSQL,
		"outboxStatsSQL":                  outboxStatsSQL,
		"purgePayloadsSQL":                purgePayloadsSQL,
		"rateCardInForceSQL":              rateCardInForceSQL,
		"rateLimitsSQL":                   rateLimitsSQL,
		"receiptByReferenceSQL":           receiptByReferenceSQL,
		"recordFailureSQL":                recordFailureSQL,
		"reserveProductsSQL":              reserveProductsSQL,
		"revokeAPIKeySQL":                 revokeAPIKeySQL,
		"rewindCatchUpSQL":                rewindCatchUpSQL,
		"selectShipmentsSQL":              selectShipmentsSQL,
		"serviceByReferenceSQL":           serviceByReferenceSQL,
		"setFixtureRateLimitsSQL":         setFixtureRateLimitsSQL,
		"setInvoiceStatusSQL":             setInvoiceStatusSQL,
		"setRateCardSQL":                  setRateCardSQL,
		"setRateLimitSQL":                 setRateLimitSQL,
		"shareBillingSQL":                 shareBillingSQL,
		"shareReceiptBillingSQL":          shareReceiptBillingSQL,
		"shareServiceBillingSQL":          shareServiceBillingSQL,
		"shareShipmentBillingSQL":         shareShipmentBillingSQL,
		"shipmentCartonsSQL":              shipmentCartonsSQL,
		"shipmentProductsSQL":             shipmentProductsSQL,
		"startPeriodSQL":                  startPeriodSQL,
		"startStorageSQL":                 startStorageSQL,
		"sumsSQL":                         sumsSQL,
		"updateShipmentSQL":               updateShipmentSQL,
		"warehouseActiveSQL":              warehouseActiveSQL,
		"webhookSecretSQL":                webhookSecretSQL,
	}
	for key, orders := range invoiceLists {
		for dir, l := range orders {
			for i, s := range []statement{l.list, l.listOfStatus, l.search, l.contains, l.shortTerm} {
				all[fmt.Sprintf("invoiceLists[%s][%d] #%d", key, dir, i)] = s
			}
		}
	}
	for _, kind := range []domain.ItemKind{domain.KindProduct, domain.KindCarton} {
		q := inventorySQLOf(kind)
		for i, s := range []statement{q.findByIDs, q.page, q.pageBySKU, q.levels, q.lock, q.adjust, insertItemsSQL(kind), insertStockSQL(kind)} {
			all[fmt.Sprintf("%s #%d", kind, i)] = s
		}
	}
	for name, s := range all {
		if got := operation(s.sql()); got != s.command() {
			t.Errorf("%s: declared %s, runs %s", name, s.command(), got)
		}
	}
}

// visibleInvoice is domain.VisibleInvoiceStatuses in SQL.
func TestVisibleInvoiceIsTheDomainsRule(t *testing.T) {
	quoted := make([]string, len(domain.VisibleInvoiceStatuses))
	for i, st := range domain.VisibleInvoiceStatuses {
		quoted[i] = "'" + string(st) + "'"
	}
	if want := "i.status IN (" + strings.Join(quoted, ", ") + ") AND i.deleted_at IS NULL"; visibleInvoice != want {
		t.Errorf("visibleInvoice\n%s\nwant\n%s", visibleInvoice, want)
	}
}

// operation is a statement's SQL command, the span's name: its first word,
// or, after WITH, the first command outside the parentheses of its
// common table expressions. (bun's QueryEvent.Operation, the first word,
// would name the intake's statements WITH.)
func operation(text string) string {
	depth, first := 0, true
	for _, f := range strings.FieldsFunc(text, func(c rune) bool { return c == ' ' || c == '\n' || c == '\t' || c == ',' }) {
		trimmed := strings.TrimLeft(f, "(")
		depth += len(f) - len(trimmed) // parentheses before the word enclose it
		word := strings.ToUpper(strings.TrimRight(trimmed, "()"))
		if depth == 0 && (first && word != "WITH" || !first && isCommand(word)) {
			return word
		}
		first = false
		depth += strings.Count(trimmed, "(") - strings.Count(trimmed, ")")
	}
	return "SQL"
}

func isCommand(word string) bool {
	switch word {
	case "SELECT", "INSERT", "UPDATE", "DELETE":
		return true
	}
	return false
}
