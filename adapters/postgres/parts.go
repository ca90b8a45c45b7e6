package postgres

import (
	"github.com/acme3pl/fulfillment/ports"
)

// The parts of the kit's statements and helpers that the context packages
// (adapters/postgres/<context>) compose theirs with: an order receipt's
// acceptance (adapters/postgres/intake) writes its event with the outbox's
// statement.

// InsertEventCTE writes one event in a statement of the transaction.
const InsertEventCTE = insertEventCTE

// NullIfEmpty stores "" as NULL, as the tables' checks expect.
func NullIfEmpty(s string) *string { return nullIfEmpty(s) }

// Deref is *s, or "" for nil.
func Deref(s *string) string { return deref(s) }

// TrimPage cuts the extra row a list query reads (LIMIT take+1) and
// reports whether it was there.
func TrimPage[T any](rows []T, page ports.Page) ([]T, bool) { return trimPage(rows, page) }

// TxEvents are the events of a unit of work (Handle.TxEvents), which a
// statement may write itself (TakeOne).
type TxEvents = txEvents

// TxEvents are the events of h's unit of work.
func (h Handle) TxEvents() *TxEvents { return h.events }

// OutboxRow is an encoded event waiting for its transaction to write it.
type OutboxRow = outboxRow

// TakeOne hands the one pending event to a statement that writes it itself
// (InsertEventCTE); nil when none or several are pending.
func (t *txEvents) TakeOne() *OutboxRow { return t.takeOne() }

// Args are the row's values in the order of InsertEventCTE's columns.
func (o outboxRow) Args() []any { return o.args() }
