package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme3pl/fulfillment/domain/shipping"
)

// ItemKinds are the label values of
// fulfillment_warehouse_units_received_total{kind}.
var ItemKinds = []string{string(shipping.KindProduct), string(shipping.KindCarton)}

func newUnitsReceived() *prometheus.CounterVec {
	return newCounterVec("fulfillment_warehouse_units_received_total",
		"Units received at the warehouses by new receipts (a retry of a receipt adds none), by kind of item (product, carton).",
		"kind")
}

// ObserveUnitsReceived counts the units of one new receipt of one kind of
// item (product or carton).
func (m *Metrics) ObserveUnitsReceived(kind string, units int64) {
	if units > 0 {
		m.UnitsReceived.WithLabelValues(kind).Add(float64(units))
	}
}
