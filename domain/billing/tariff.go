package billing

// The tariff: every fee a rate card prices, in one table (Tariff). The rest
// derives from it: the fees a card accepts (Fees), the invoice lines'
// titles and nouns (FeeLines), the SQL that accrues, catches up, sums,
// rewinds and reprices the charges (adapters/postgres/billing/tariff_sql.go), the
// rate card's storage (a row per fee: a new fee needs no migration) and the
// metrics' fee label. docs/billing.md, "A new fee", is the recipe.

// Fee names one price of a rate card, in cents per unit.
type Fee string

// The fees of the tariff (the table below says what each prices). A fee a
// card leaves out is 0.
const (
	PickPackOrder      Fee = "pick_pack_order"
	PickPackUnit       Fee = "pick_pack_unit"
	SPDCarton          Fee = "spd_carton"
	ReceivingUnit      Fee = "receiving_unit"
	ReceivingCarton    Fee = "receiving_carton"
	StorageUnitMonth   Fee = "storage_unit_month"
	StorageCartonMonth Fee = "storage_carton_month"
	MinimumMonthly     Fee = "minimum_monthly"
)

// Fact is the kind of fact a fee prices. The accrued facts' names are also
// their charges' source type (api/openapi.yaml, InvoiceCharge.source).
type Fact string

const (
	// Shipped is a shipment shipped: its charges are accrued by the ship,
	// their source the shipment.
	Shipped Fact = "shipment"
	// Received is a warehouse receipt: accrued by the receipt, its source
	// the receipt's reference.
	Received Fact = "receipt"
	// StorageDay is a day of storage of a warehouse, accrued from the stock
	// ledger by the billing runs once the day has ended.
	StorageDay Fact = "storage_day"
	// PeriodFinalized is a billing period, priced when it is finalized,
	// not accrued (the monthly minimum tops the period's charges up, as
	// FeeMinimum).
	PeriodFinalized Fact = "period"
)

// Measure is what a fee counts of its fact.
type Measure string

const (
	// EachFact counts 1 per fact.
	EachFact Measure = "each"
	// Units counts the fact's product units (a day of storage: the units
	// on hand at its end).
	Units Measure = "units"
	// Cartons counts the fact's cartons (a day of storage: on hand).
	Cartons Measure = "cartons"
)

// FeeRule is one row of the tariff: a fee, the fact it prices and what it
// counts of it, how its invoice line reads, and what its price is per.
type FeeRule struct {
	Fee     Fee
	Fact    Fact
	Measure Measure
	// Kind limits a shipment's fee to shipments of that kind (pick_pack,
	// spd); "" is every shipment.
	Kind string
	// Free is how many of the measure each fact has free: the Pick & Pack
	// order includes its first unit.
	Free int64
	// Title is the invoice line's title.
	Title string
	// Unit is what the fee's price is per (docs/billing.md).
	Unit string
}

// Tariff is every fee of a rate card, in the order of docs/billing.md and of
// an invoice's lines.
var Tariff = []FeeRule{
	{Fee: PickPackOrder, Fact: Shipped, Measure: EachFact, Kind: "pick_pack", Title: "Pick & Pack orders", Unit: "order"},
	{Fee: PickPackUnit, Fact: Shipped, Measure: Units, Kind: "pick_pack", Free: 1, Title: "Pick & Pack additional units", Unit: "unit"},
	{Fee: SPDCarton, Fact: Shipped, Measure: Cartons, Kind: "spd", Title: "SPD cartons", Unit: "carton"},
	{Fee: ReceivingUnit, Fact: Received, Measure: Units, Title: "Receiving (units)", Unit: "unit"},
	{Fee: ReceivingCarton, Fact: Received, Measure: Cartons, Title: "Receiving (cartons)", Unit: "carton"},
	{Fee: StorageUnitMonth, Fact: StorageDay, Measure: Units, Title: "Storage (units)", Unit: "unit a month"},
	{Fee: StorageCartonMonth, Fact: StorageDay, Measure: Cartons, Title: "Storage (cartons)", Unit: "carton a month"},
	// The minimum's line is FeeMinimum's: what the period's charges fall
	// short of it.
	{Fee: MinimumMonthly, Fact: PeriodFinalized, Measure: EachFact, Unit: "month"},
}

// Fees are every fee of a rate card, in the tariff's order.
var Fees = func() []Fee {
	out := make([]Fee, len(Tariff))
	for i, r := range Tariff {
		out[i] = r.Fee
	}
	return out
}()

// FeesOf are the rules of the tariff's fees that price a fact, in the
// tariff's order.
func FeesOf(fact Fact) []FeeRule {
	var out []FeeRule
	for _, r := range Tariff {
		if r.Fact == fact {
			out = append(out, r)
		}
	}
	return out
}

// AccruedFacts are the facts whose charges are accrued as they happen (or
// as their day ends), in the tariff's order: every fact but the period.
var AccruedFacts = []Fact{Shipped, Received, StorageDay}

// Charge kinds beyond the card's fees: the label of
// fulfillment_billing_charges_total for a service, an operator's charge and
// the monthly minimum.
const (
	FeeService  Fee = "service"
	FeeOperator Fee = "operator"
	FeeMinimum  Fee = "minimum"
	// FeeCreditForward is a credit carried forward from one invoice to the
	// organization's next (docs/billing.md).
	FeeCreditForward Fee = "credit_forward"
)

// Titles of the credit forward's two lines: the invoice that carries it,
// and the next invoice that brings it.
const (
	TitleCreditCarriedForward = "Credit carried forward"
	TitleCreditBroughtForward = "Credit brought forward"
)

// FeeLine is how an invoice line of a fee reads: its title, and the noun
// of the facts it counts, in its description ("wh_1: 3 shipments").
type FeeLine struct {
	Title        string
	Noun, NounPl string // one fact, more
}

// factNouns name the facts in an invoice line's description.
var factNouns = map[Fact][2]string{
	Shipped:    {"shipment", "shipments"},
	Received:   {"receipt", "receipts"},
	StorageDay: {"day", "days"},
}

// FeeLines are the invoice lines' words by fee (docs/billing.md): the
// tariff's fees' from the tariff; a service's line is titled by the card
// and an operator's charge by the operator: they have nouns only; the
// monthly minimum counts nothing.
var FeeLines = func() map[Fee]FeeLine {
	out := map[Fee]FeeLine{
		FeeService:  {Noun: "service", NounPl: "services"},
		FeeOperator: {Noun: "charge", NounPl: "charges"},
		FeeMinimum:  {Title: "Monthly minimum"},
	}
	for _, r := range Tariff {
		if n, ok := factNouns[r.Fact]; ok {
			out[r.Fee] = FeeLine{Title: r.Title, Noun: n[0], NounPl: n[1]}
		}
	}
	return out
}()

// Title is the line title of the fee's charges ("" for a service's and an
// operator's, titled by the card and the operator).
func (f Fee) Title() string { return FeeLines[f].Title }

// Titles are the titles of FeeLines, by fee, for the fees that have one.
var Titles = func() map[Fee]string {
	out := map[Fee]string{}
	for f, l := range FeeLines {
		if l.Title != "" {
			out[f] = l.Title
		}
	}
	return out
}()
