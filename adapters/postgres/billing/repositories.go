package billing

import (
	"github.com/acme3pl/fulfillment/adapters/postgres"
	pginvoicing "github.com/acme3pl/fulfillment/adapters/postgres/invoicing"
	billingports "github.com/acme3pl/fulfillment/ports/billing"
	invoicingports "github.com/acme3pl/fulfillment/ports/invoicing"
)

// Repositories binds billing's repositories to h: a unit of work's
// transaction (postgres.UnitOfWorkOf) or the pool. Its own are the rate
// cards, the charges and the billing periods; the invoices are
// invoicing's, the rest the kit's.
func Repositories(h postgres.Handle) billingports.Repositories {
	return billingports.Repositories{
		RateCards:      RateCards(h),
		Charges:        Charges(h),
		BillingPeriods: Periods(h),
		Organizations:  postgres.Organizations(h),
		Invoices:       pginvoicing.Invoices(h),
		Overview:       postgres.Overview(h),
		Trail:          postgres.Trail(h),
	}
}

// The package's repositories that the warehouse context's bind, the
// fixture store's and invoicing's (InvoiceCharges) build theirs with, on h.

// RateCards are the organizations' rate cards.
func RateCards(h postgres.Handle) billingports.RateCardRepository {
	return &RateCardRepository{run: h.Runner()}
}

// Charges are billing's charges, at h's billing settings.
func Charges(h postgres.Handle) billingports.ChargeRepository {
	return &ChargeRepository{run: h.Runner(), settings: h.Billing()}
}

// Periods are the billing periods.
func Periods(h postgres.Handle) billingports.PeriodRepository {
	return &PeriodRepository{run: h.Runner()}
}

// InvoiceCharges are the charges behind an invoice's lines, for the
// invoicing context's bind: pginvoicing.Repositories(InvoiceCharges).
func InvoiceCharges(h postgres.Handle) invoicingports.InvoiceCharges {
	return &ChargeRepository{run: h.Runner(), settings: h.Billing()}
}

// Statements are the package's statements by name, for the one golden
// file of every statement (adapters/postgres/testdata/statements.golden).
func Statements() map[string]postgres.Statement {
	return map[string]postgres.Statement{
		"accrueReceiptSQL":        accrueReceiptSQL,
		"accrueServiceSQL":        accrueServiceSQL,
		"accrueShipmentSQL":       accrueShipmentSQL,
		"accrueStorageSQL":        accrueStorageSQL,
		"addOperatorChargeSQL":    addOperatorChargeSQL,
		"billedSQL":               billedSQL,
		"carriedForwardSQL":       carriedForwardSQL,
		"carryCreditsSQL":         carryCreditsSQL,
		"catchUpReceiptsSQL":      catchUpReceiptsSQL,
		"catchUpServicesSQL":      catchUpServicesSQL,
		"catchUpShipmentsSQL":     catchUpShipmentsSQL,
		"closedUntilSQL":          closedUntilSQL,
		"collectSQL":              collectSQL,
		"dropStaleNextSQL":        dropStaleNextSQL,
		"duePeriodsSQL":           duePeriodsSQL,
		"finalizePeriodsSQL":      finalizePeriodsSQL,
		"insertBilledInvoicesSQL": insertBilledInvoicesSQL,
		"insertBilledItemsSQL":    insertBilledItemsSQL,
		"insertInvoiceChargesSQL": insertInvoiceChargesSQL,
		"invoiceChargesSQL":       invoiceChargesSQL,
		"invoiceStatusSQL":        invoiceStatusSQL,
		"lockBillingSQL":          lockBillingSQL,
		"lockOpenManySQL":         lockOpenManySQL,
		"lockOpenPeriodSQL":       lockOpenPeriodSQL,
		"minimumsSQL":             minimumsSQL,
		"moveCatchUpSQL":          moveCatchUpSQL,
		"nextKeysSQL":             nextKeysSQL,
		"nextPeriodSQL":           nextPeriodSQL,
		"offboardSQL":             offboardSQL,
		"oldestOverdueSQL":        oldestOverdueSQL,
		"openNextPeriodsSQL":      openNextPeriodsSQL,
		"openPeriodSQL":           openPeriodSQL,
		"operatorChargeSQL":       operatorChargeSQL,
		"rateCardInForceSQL":      rateCardInForceSQL,
		"readNextPeriodSQL":       readNextPeriodSQL,
		"repriceChargesSQL":       repriceChargesSQL,
		"repriceServicesSQL":      repriceServicesSQL,
		"rewindCatchUpSQL":        rewindCatchUpSQL,
		"servicesOffCardSQL":      servicesOffCardSQL,
		"setInvoiceStatusSQL":     setInvoiceStatusSQL,
		"setRateCardFeesSQL":      setRateCardFeesSQL,
		"setRateCardSQL":          setRateCardSQL,
		"shareBillingSQL":         shareBillingSQL,
		"shareReceiptBillingSQL":  shareReceiptBillingSQL,
		"shareServiceBillingSQL":  shareServiceBillingSQL,
		"shareShipmentBillingSQL": shareShipmentBillingSQL,
		"startPeriodSQL":          startPeriodSQL,
		"startStorageSQL":         startStorageSQL,
		"sumsSQL":                 sumsSQL,
		"tryLockBillingSQL":       tryLockBillingSQL,
	}
}
