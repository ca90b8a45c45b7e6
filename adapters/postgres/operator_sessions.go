package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/domain/operator"
	operatorports "github.com/acme3pl/fulfillment/ports/operator"
)

// OperatorSessions implements operatorports.Sessions on the tables
// console_sessions and console_signin_links (migration 0021).
type OperatorSessions struct{ run runner }

var _ operatorports.Sessions = (*OperatorSessions)(nil)

// NewOperatorSessions returns the sessions on db.
func NewOperatorSessions(db bun.IDB) *OperatorSessions { return &OperatorSessions{run: runner{db: db}} }

const (
	createSigninLinkSQL sqlInsert = `INSERT INTO console_signin_links (token_hash, subject, role, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`
	// The row lock makes a link's use atomic: of concurrent updates the
	// first sets used_at, and the others, once it commits, find it set and
	// match nothing.
	useSigninLinkSQL sqlUpdate = `UPDATE console_signin_links SET used_at = $2 ` +
		`WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 ` +
		`RETURNING subject, role, created_at, expires_at`
	createSessionSQL sqlInsert = `INSERT INTO console_sessions (id_hash, subject, email, role, started_at, last_used_at) ` +
		`VALUES ($1, $2, $3, $4, $5, $6)`
	sessionSQL       sqlSelect = `SELECT subject, email, role, started_at, last_used_at FROM console_sessions WHERE id_hash = $1`
	touchSessionSQL  sqlUpdate = `UPDATE console_sessions SET last_used_at = greatest(last_used_at, $2) WHERE id_hash = $1`
	endSessionSQL    sqlDelete = `DELETE FROM console_sessions WHERE id_hash = $1`
	endSessionsOfSQL sqlDelete = `DELETE FROM console_sessions WHERE subject = $1`
)

// CreateLink stores l under hash.
func (s *OperatorSessions) CreateLink(ctx context.Context, hash []byte, l operator.SignInLink) error {
	_, err := s.run.exec(ctx, createSigninLinkSQL, hash, l.Principal.Subject, l.Principal.Role.String(), l.Created, l.Expires)
	return dbErr(err)
}

// UseLink marks the link used at now, once.
func (s *OperatorSessions) UseLink(ctx context.Context, hash []byte, now time.Time) (operator.SignInLink, bool, error) {
	var (
		l     operator.SignInLink
		found bool
	)
	err := s.run.query(ctx, useSigninLinkSQL, func(rows *sql.Rows) error {
		var role string
		if err := rows.Scan(&l.Principal.Subject, &role, &l.Created, &l.Expires); err != nil {
			return err
		}
		r, err := storedRole(role)
		l.Principal.Role, found = r, true
		return err
	}, hash, now)
	return l, found, dbErr(err)
}

// CreateSession stores ses under hash.
func (s *OperatorSessions) CreateSession(ctx context.Context, hash []byte, ses operator.Session) error {
	p := ses.Principal
	_, err := s.run.exec(ctx, createSessionSQL, hash, p.Subject, p.Email, p.Role.String(), ses.Started, ses.LastUsed)
	return dbErr(err)
}

// Session is the session of hash.
func (s *OperatorSessions) Session(ctx context.Context, hash []byte) (operator.Session, bool, error) {
	var (
		ses   operator.Session
		found bool
	)
	err := s.run.query(ctx, sessionSQL, func(rows *sql.Rows) error {
		var role string
		if err := rows.Scan(&ses.Principal.Subject, &ses.Principal.Email, &role, &ses.Started, &ses.LastUsed); err != nil {
			return err
		}
		r, err := storedRole(role)
		ses.Principal.Role, found = r, true
		ses.Started, ses.LastUsed = ses.Started.UTC(), ses.LastUsed.UTC()
		return err
	}, hash)
	return ses, found, dbErr(err)
}

// Touch sets the session's last use to at (never back in time).
func (s *OperatorSessions) Touch(ctx context.Context, hash []byte, at time.Time) error {
	_, err := s.run.exec(ctx, touchSessionSQL, hash, at)
	return dbErr(err)
}

// EndSession removes the session of hash.
func (s *OperatorSessions) EndSession(ctx context.Context, hash []byte) (bool, error) {
	n, err := s.run.exec(ctx, endSessionSQL, hash)
	return n > 0, dbErr(err)
}

// EndSessionsOf removes every session of subject.
func (s *OperatorSessions) EndSessionsOf(ctx context.Context, subject string) (int, error) {
	n, err := s.run.exec(ctx, endSessionsOfSQL, subject)
	return int(n), dbErr(err)
}

// storedRole reads a role the table's CHECK allows.
func storedRole(name string) (operator.Role, error) {
	r, ok := operator.ParseRole(name)
	if !ok {
		return operator.NoRole, fmt.Errorf("console session: stored role %q is none", name)
	}
	return r, nil
}
