package operator

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	"github.com/acme3pl/fulfillment/domain/operator"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// Sessions implements operatorports.Sessions on the tables
// console_sessions and console_signin_links (migration 0021).
type Sessions struct{ run postgres.Runner }

var _ operatorports.Sessions = (*Sessions)(nil)

// NewSessions returns the sessions on db.
func NewSessions(db bun.IDB) *Sessions {
	return &Sessions{run: postgres.NewRunner(db)}
}

const (
	createSigninLinkSQL postgres.SQLInsert = `INSERT INTO console_signin_links (token_hash, subject, role, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`
	// The row lock makes a link's use atomic: of concurrent updates the
	// first sets used_at, and the others, once it commits, find it set and
	// match nothing.
	useSigninLinkSQL postgres.SQLUpdate = `UPDATE console_signin_links SET used_at = $2 ` +
		`WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 ` +
		`RETURNING subject, role, created_at, expires_at`
	createSessionSQL postgres.SQLInsert = `INSERT INTO console_sessions (id_hash, subject, email, role, started_at, last_used_at) ` +
		`VALUES ($1, $2, $3, $4, $5, $6)`
	sessionSQL       postgres.SQLSelect = `SELECT subject, email, role, started_at, last_used_at FROM console_sessions WHERE id_hash = $1`
	touchSessionSQL  postgres.SQLUpdate = `UPDATE console_sessions SET last_used_at = greatest(last_used_at, $2) WHERE id_hash = $1`
	endSessionSQL    postgres.SQLDelete = `DELETE FROM console_sessions WHERE id_hash = $1`
	endSessionsOfSQL postgres.SQLDelete = `DELETE FROM console_sessions WHERE subject = $1`
)

// CreateLink stores l under hash.
func (s *Sessions) CreateLink(ctx context.Context, hash []byte, l operator.SignInLink) error {
	_, err := s.run.Exec(ctx, createSigninLinkSQL, hash, l.Principal.Subject, l.Principal.Role.String(), l.Created, l.Expires)
	return postgres.DBErr(err)
}

// UseLink marks the link used at now, once.
func (s *Sessions) UseLink(ctx context.Context, hash []byte, now time.Time) (operator.SignInLink, bool, error) {
	var (
		l     operator.SignInLink
		found bool
	)
	err := s.run.Query(ctx, useSigninLinkSQL, func(rows *sql.Rows) error {
		var role string
		if err := rows.Scan(&l.Principal.Subject, &role, &l.Created, &l.Expires); err != nil {
			return err
		}
		r, err := storedRole(role)
		l.Principal.Role, found = r, true
		return err
	}, hash, now)
	return l, found, postgres.DBErr(err)
}

// CreateSession stores ses under hash.
func (s *Sessions) CreateSession(ctx context.Context, hash []byte, ses operator.Session) error {
	p := ses.Principal
	_, err := s.run.Exec(ctx, createSessionSQL, hash, p.Subject, p.Email, p.Role.String(), ses.Started, ses.LastUsed)
	return postgres.DBErr(err)
}

// Session is the session of hash.
func (s *Sessions) Session(ctx context.Context, hash []byte) (operator.Session, bool, error) {
	var (
		ses   operator.Session
		found bool
	)
	err := s.run.Query(ctx, sessionSQL, func(rows *sql.Rows) error {
		var role string
		if err := rows.Scan(&ses.Principal.Subject, &ses.Principal.Email, &role, &ses.Started, &ses.LastUsed); err != nil {
			return err
		}
		r, err := storedRole(role)
		ses.Principal.Role, found = r, true
		ses.Started, ses.LastUsed = ses.Started.UTC(), ses.LastUsed.UTC()
		return err
	}, hash)
	return ses, found, postgres.DBErr(err)
}

// Touch sets the session's last use to at (never back in time).
func (s *Sessions) Touch(ctx context.Context, hash []byte, at time.Time) error {
	_, err := s.run.Exec(ctx, touchSessionSQL, hash, at)
	return postgres.DBErr(err)
}

// EndSession removes the session of hash.
func (s *Sessions) EndSession(ctx context.Context, hash []byte) (bool, error) {
	n, err := s.run.Exec(ctx, endSessionSQL, hash)
	return n > 0, postgres.DBErr(err)
}

// EndSessionsOf removes every session of subject.
func (s *Sessions) EndSessionsOf(ctx context.Context, subject string) (int, error) {
	n, err := s.run.Exec(ctx, endSessionsOfSQL, subject)
	return int(n), postgres.DBErr(err)
}

// storedRole reads a role the table's CHECK allows.
func storedRole(name string) (operator.Role, error) {
	r, ok := operator.ParseRole(name)
	if !ok {
		return operator.NoRole, fmt.Errorf("console session: stored role %q is none", name)
	}
	return r, nil
}

// Repositories binds the operator context's repositories to h: a unit of
// work's transaction (postgres.UnitOfWorkOf) or the pool.
func Repositories(h postgres.Handle) operatorports.Repositories {
	return operatorports.Repositories{OperatorSessions: &Sessions{run: h.Runner()}}
}

// Statements are the package's statements by name, for the one golden
// file of every statement (adapters/postgres/testdata/statements.golden).
func Statements() map[string]postgres.Statement {
	return map[string]postgres.Statement{
		"createSigninLinkSQL": createSigninLinkSQL,
		"useSigninLinkSQL":    useSigninLinkSQL,
		"createSessionSQL":    createSessionSQL,
		"sessionSQL":          sessionSQL,
		"touchSessionSQL":     touchSessionSQL,
		"endSessionSQL":       endSessionSQL,
		"endSessionsOfSQL":    endSessionsOfSQL,
	}
}
