package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/ports"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

// AuditLog implements auditports.Log on the table audit_records
// (migration 0020), which refuses every UPDATE, DELETE and TRUNCATE.
type AuditLog struct{ run runner }

var _ auditports.Log = (*AuditLog)(nil)

// NewAuditLog returns the audit log on db (the pool: `audit list`).
func NewAuditLog(db bun.IDB) *AuditLog { return &AuditLog{run: runner{db: db}} }

const (
	appendAuditSQL sqlInsert = `INSERT INTO audit_records (id, at, actor_subject, actor_email, action, organization_id, input, outcome, trace_id) ` +
		`VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $7::jsonb, $8, $9)`
	// An empty filter selects all: `audit list` takes any of the three.
	listAuditSQL sqlSelect = `SELECT id, at, actor_subject, coalesce(actor_email, ''), action, organization_id, input::text, outcome, trace_id ` +
		`FROM audit_records WHERE ($1 = '' OR organization_id = $1) AND ($2 = '' OR actor_subject = $2 OR actor_email = $2) AND ($3::timestamptz IS NULL OR at >= $3) ` +
		`AND ($4 = '' OR action = $4) ORDER BY at, seq`
	// A page of them newest first (the console): the same filters, on the
	// same indexes walked backwards.
	pageAuditSQL sqlSelect = `SELECT id, at, actor_subject, coalesce(actor_email, ''), action, organization_id, input::text, outcome, trace_id ` +
		`FROM audit_records WHERE ($1 = '' OR organization_id = $1) AND ($2 = '' OR actor_subject = $2 OR actor_email = $2) AND ($3::timestamptz IS NULL OR at >= $3) ` +
		`AND ($4 = '' OR action = $4) ORDER BY at DESC, seq DESC LIMIT $5 OFFSET $6`
)

// Append writes rec; its input must be a JSON object.
func (l *AuditLog) Append(ctx context.Context, rec audit.Record) error {
	if !json.Valid(rec.Input) {
		return fmt.Errorf("audit record %s: its input is not JSON", rec.ID)
	}
	_, err := l.run.exec(ctx, appendAuditSQL, rec.ID, rec.At, rec.Actor.Subject, rec.Actor.Email, string(rec.Action),
		rec.OrganizationID, string(rec.Input), string(rec.Outcome), rec.TraceID)
	return dbErr(err)
}

// List hands the records q selects to each, oldest first.
func (l *AuditLog) List(ctx context.Context, q auditports.Query, each func(audit.Record) error) error {
	var since *time.Time // NULL: from the first
	if !q.Since.IsZero() {
		since = &q.Since
	}
	err := l.run.query(ctx, listAuditSQL, func(rows *sql.Rows) error {
		rec, err := scanAudit(rows)
		if err != nil {
			return err
		}
		return each(rec)
	}, q.OrganizationID, q.Actor, since, string(q.Action))
	return dbErr(err)
}

// Page returns a page of the records q selects, newest first.
func (l *AuditLog) Page(ctx context.Context, q auditports.Query, page ports.Page) ([]audit.Record, bool, error) {
	var since *time.Time
	if !q.Since.IsZero() {
		since = &q.Since
	}
	var out []audit.Record
	err := l.run.query(ctx, pageAuditSQL, func(rows *sql.Rows) error {
		rec, err := scanAudit(rows)
		out = append(out, rec)
		return err
	}, q.OrganizationID, q.Actor, since, string(q.Action), page.Take+1, page.Skip)
	if err != nil {
		return nil, false, dbErr(err)
	}
	more := len(out) > page.Take
	if more {
		out = out[:page.Take]
	}
	return out, more, nil
}

func scanAudit(rows *sql.Rows) (audit.Record, error) {
	var (
		rec                    audit.Record
		action, input, outcome string
	)
	if err := rows.Scan(&rec.ID, &rec.At, &rec.Actor.Subject, &rec.Actor.Email, &action, &rec.OrganizationID,
		&input, &outcome, &rec.TraceID); err != nil {
		return rec, err
	}
	rec.At, rec.Action, rec.Input, rec.Outcome = rec.At.UTC(), audit.Action(action), []byte(input), audit.Outcome(outcome)
	return rec, nil
}
