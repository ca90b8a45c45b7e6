package postgres

import (
	"fmt"
	"strings"
)

// allStatements are the kit's repositories' statements by name (the
// context packages' are their Statements: statement_texts_test.go).
func allStatements() map[string]statement {
	all := map[string]statement{
		"appliedMigrationsSQL":    appliedMigrationsSQL,
		"appendAuditSQL":          appendAuditSQL,
		"listAuditSQL":            listAuditSQL,
		"migrationLockSQL":        migrationLockSQL,
		"migrationUnlockSQL":      migrationUnlockSQL,
		"accrueReceiptSQL":        accrueReceiptSQL,
		"accrueServiceSQL":        accrueServiceSQL,
		"accrueShipmentSQL":       accrueShipmentSQL,
		"accrueStorageSQL":        accrueStorageSQL,
		"activeWarehouseSQL":      activeWarehouseSQL,
		"activeWarehousesSQL":     activeWarehousesSQL,
		"addOperatorChargeSQL":    addOperatorChargeSQL,
		"operatorChargeSQL":       operatorChargeSQL,
		"availableWarehousesSQL":  availableWarehousesSQL,
		"carriedForwardSQL":       carriedForwardSQL,
		"carryCreditsSQL":         carryCreditsSQL,
		"catchUpReceiptsSQL":      catchUpReceiptsSQL,
		"catchUpServicesSQL":      catchUpServicesSQL,
		"catchUpShipmentsSQL":     catchUpShipmentsSQL,
		"claimEventsSQL":          claimEventsSQL,
		"closedUntilSQL":          closedUntilSQL,
		"collectSQL":              collectSQL,
		"deleteEventsSQL":         deleteEventsSQL,
		"duePeriodsSQL":           duePeriodsSQL,
		"finalizePeriodsSQL":      finalizePeriodsSQL,
		"insertBilledInvoicesSQL": insertBilledInvoicesSQL,
		"insertBilledItemsSQL":    insertBilledItemsSQL,
		"insertEventsSQL":         insertEventsSQL,
		"insertInvoiceChargesSQL": insertInvoiceChargesSQL,
		"invoiceChargesSQL":       invoiceChargesSQL,
		"invoiceDetailSQL":        invoiceDetailSQL,
		"invoiceItemsSQL":         invoiceItemsSQL,
		"invoiceStatusSQL":        invoiceStatusSQL,
		"lockBillingSQL":          lockBillingSQL,
		"lockOpenManySQL":         lockOpenManySQL,
		"lockOpenPeriodSQL":       lockOpenPeriodSQL,
		"minimumsSQL":             minimumsSQL,
		"moveCatchUpSQL":          moveCatchUpSQL,
		"nextKeysSQL":             nextKeysSQL,
		"offboardSQL":             offboardSQL,
		"oldestOverdueSQL":        oldestOverdueSQL,
		"openNextPeriodsSQL":      openNextPeriodsSQL,
		"openPeriodSQL":           openPeriodSQL,
		"organizationSQL":         organizationSQL,
		"pendingShipmentsSQL":     pendingShipmentsSQL,
		"openPeriodsEndedBySQL":   openPeriodsEndedBySQL,
		"outboxBacklogSQL":        outboxBacklogSQL,
		"pageAuditSQL":            pageAuditSQL,
		"organizationsSQL":        organizationsSQL,
		"outboxStatsSQL":          outboxStatsSQL,
		"assertRecordingSQL":      assertRecordingSQL,
		"withdrawRecordingSQL":    withdrawRecordingSQL,
		"recordingSQL":            recordingSQL,
		"rateCardInForceSQL":      rateCardInForceSQL,
		"rewindCatchUpSQL":        rewindCatchUpSQL,
		"repriceChargesSQL":       repriceChargesSQL,
		"repriceServicesSQL":      repriceServicesSQL,
		"servicesOffCardSQL":      servicesOffCardSQL,
		"tryLockBillingSQL":       tryLockBillingSQL,
		"billedSQL":               billedSQL,
		"nextPeriodSQL":           nextPeriodSQL,
		"readNextPeriodSQL":       readNextPeriodSQL,
		"dropStaleNextSQL":        dropStaleNextSQL,
		"setInvoiceStatusSQL":     setInvoiceStatusSQL,
		"setRateCardSQL":          setRateCardSQL,
		"setRateCardFeesSQL":      setRateCardFeesSQL,
		"shareBillingSQL":         shareBillingSQL,
		"shareReceiptBillingSQL":  shareReceiptBillingSQL,
		"shareServiceBillingSQL":  shareServiceBillingSQL,
		"shareShipmentBillingSQL": shareShipmentBillingSQL,
		"startPeriodSQL":          startPeriodSQL,
		"startStorageSQL":         startStorageSQL,
		"sumsSQL":                 sumsSQL,
		"warehouseActiveSQL":      warehouseActiveSQL,
	}
	for key, orders := range invoiceLists {
		for dir, l := range orders {
			kinds := []string{"list", "listOfStatus", "search", "contains", "shortTerm"}
			for i, s := range []statement{l.list, l.listOfStatus, l.search, l.contains, l.shortTerm} {
				all[fmt.Sprintf("invoiceLists[%s][%s].%s", key, [2]string{"desc", "asc"}[dir], kinds[i])] = s
			}
		}
	}
	return all
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
