package apptest

import (
	"context"
	"sync"

	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

// AuditLog is an in-memory auditports.Log: it keeps what is appended
// (a fake unit of work does not roll it back).
type AuditLog struct {
	mu      sync.Mutex
	Records []audit.Record
}

var _ auditports.Log = (*AuditLog)(nil)

// Append keeps rec.
func (l *AuditLog) Append(_ context.Context, rec audit.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Records = append(l.Records, rec)
	return nil
}

// List hands every record to each, in the order appended (the query is
// not applied).
func (l *AuditLog) List(_ context.Context, _ auditports.Query, each func(audit.Record) error) error {
	l.mu.Lock()
	recs := append([]audit.Record(nil), l.Records...)
	l.mu.Unlock()
	for _, r := range recs {
		if err := each(r); err != nil {
			return err
		}
	}
	return nil
}

// Page returns every record, newest first, in pages (the query is not
// applied).
func (l *AuditLog) Page(_ context.Context, _ auditports.Query, page ports.Page) ([]audit.Record, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []audit.Record
	for i := len(l.Records) - 1 - page.Skip; i >= 0 && len(out) < page.Take; i-- {
		out = append(out, l.Records[i])
	}
	return out, len(l.Records) > page.Skip+len(out), nil
}

// Operator is an actor for the tests of operator actions.
var Operator = audit.Actor{Subject: "tester"}
