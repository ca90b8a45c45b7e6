package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acme3pl/fulfillment/domain"
)

// Options configure Open.
type Options struct {
	DSN          string
	MaxOpenConns int // 0: 4 × GOMAXPROCS, bun's advice
	// Limits bound every session the pool opens. The server sets them below
	// its request deadline; operator commands (a migration may build an
	// index for minutes) leave them zero and bound their work by context.
	Limits SessionLimits
}

// SessionLimits are PostgreSQL's own bounds on a session, set on every
// connection when it opens, so that a statement or a transaction cannot
// outlive the request that started it even when the client side is stuck
// (a network partition, a paused process). Zero leaves a bound unset.
type SessionLimits struct {
	StatementTimeout         time.Duration // statement_timeout: one statement
	LockTimeout              time.Duration // lock_timeout: one wait for a lock held by another session
	IdleInTransactionTimeout time.Duration // idle_in_transaction_session_timeout: a transaction left waiting on its client
	// IOTimeout bounds a round trip that carries no deadline of its own:
	// database/sql commits and rolls back without the caller's context, so
	// without it a COMMIT sent into a partition would wait for TCP to give
	// up. Zero: such round trips wait as long as the network does.
	IOTimeout time.Duration
	// ClientCheckInterval is client_connection_check_interval: how often
	// PostgreSQL checks, while a statement runs, that the client is still
	// connected, and ends the statement when it is not (a request whose
	// client hung up closes its connection: cancel.go). Zero: never.
	ClientCheckInterval time.Duration
}

// params are the limits as the session settings pgdriver sets on connect.
func (l SessionLimits) params() map[string]any {
	p := map[string]any{}
	for name, d := range map[string]time.Duration{
		"statement_timeout":                   l.StatementTimeout,
		"lock_timeout":                        l.LockTimeout,
		"idle_in_transaction_session_timeout": l.IdleInTransactionTimeout,
		"client_connection_check_interval":    l.ClientCheckInterval,
	} {
		if d > 0 {
			p[name] = strconv.FormatInt(d.Milliseconds(), 10)
		}
	}
	return p
}

// Open connects to PostgreSQL. It does not wait for the server to answer: a
// service that starts before its database recovers by itself when the
// database arrives.
func Open(opts Options) (*bun.DB, error) {
	tlsConf, err := tlsConfig(opts.DSN)
	if err != nil {
		return nil, err
	}
	connector := pgdriver.NewConnector(
		pgdriver.WithDSN(opts.DSN),
		pgdriver.WithTLSConfig(tlsConf),
		pgdriver.WithDialTimeout(3*time.Second),
		// Round trips with a context end at its deadline, or when it is
		// cancelled (cancel.go); those without one (database/sql's COMMIT
		// and ROLLBACK, a connection the pool opens in the background) at
		// IOTimeout, which droppingConn applies. pgdriver's own read and
		// write timeouts are off: they would bound every read under any
		// deadline, a download's rows too (EXPORT_TIMEOUT is minutes).
		pgdriver.WithReadTimeout(0),
		pgdriver.WithWriteTimeout(0),
		pgdriver.WithApplicationName("fulfillment"),
		// Statement spans come from querySpans; the driver's own would repeat them.
		pgdriver.WithTracing(false),
	)
	// Added to the DSN's own parameters, not in their place.
	conf := connector.Config()
	if conf.ConnParams == nil {
		conf.ConnParams = map[string]any{}
	}
	for k, v := range opts.Limits.params() {
		conf.ConnParams[k] = v
	}
	// Prepared statements (statements.go) keep the one generic plan made
	// for them: left to choose, PostgreSQL plans a statement with an OFFSET
	// or LIMIT parameter anew at every run, because it costs the parameter
	// as a tenth of the table.
	conf.ConnParams["plan_cache_mode"] = "force_generic_plan"
	// No JIT: every statement here runs in milliseconds, and JIT compiles
	// at each execution of a generic plan whose estimate crosses
	// jit_above_cost, costing far more than the statement (docs/decisions.md).
	conf.ConnParams["jit"] = "off"
	sqldb := sql.OpenDB(droppingConnector{connector, opts.Limits.IOTimeout})
	maxConns := opts.MaxOpenConns
	if maxConns <= 0 {
		maxConns = 4 * runtime.GOMAXPROCS(0)
	}
	// Idle connections as many as open ones: database/sql keeps 2 by
	// default, so under concurrency every burst would close connections and
	// open new ones (a new PostgreSQL backend each).
	sqldb.SetMaxOpenConns(maxConns)
	sqldb.SetMaxIdleConns(maxConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, pgdialect.New())
	db.AddQueryHook(querySpans{dbName: conf.Database})
	return db, nil
}

// tlsConfig derives the TLS settings from the DSN's sslmode. pgdriver alone
// does not verify the server's certificate unless told, so verify-ca and
// verify-full get an explicit configuration here; disable turns TLS off;
// require (and prefer/allow) encrypt without verifying, as libpq does.
func tlsConfig(dsn string) (*tls.Config, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, errors.New("DATABASE_URL: not a postgres:// URL")
	}
	q := u.Query()
	mode := q.Get("sslmode")
	host := u.Hostname()
	switch mode {
	case "disable":
		return nil, nil
	case "", "allow", "prefer", "require":
		return &tls.Config{InsecureSkipVerify: true, ServerName: host, MinVersion: tls.VersionTLS12}, nil //nolint:gosec // libpq semantics of these modes: encrypted, not verified
	case "verify-ca", "verify-full":
	default:
		return nil, fmt.Errorf("DATABASE_URL: sslmode %q is not supported", mode)
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if path := q.Get("sslrootcert"); path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("DATABASE_URL: read sslrootcert: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, errors.New("DATABASE_URL: sslrootcert holds no PEM certificate")
		}
	}
	conf := &tls.Config{RootCAs: roots, ServerName: host, MinVersion: tls.VersionTLS12}
	if mode == "verify-ca" {
		// Verify the chain but not the host name: tls.Config has no switch
		// for that, so the chain is verified by hand in VerifyConnection,
		// which (unlike VerifyPeerCertificate) also runs on resumed sessions.
		conf.InsecureSkipVerify = true
		conf.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	}
	return conf, nil
}

// droppingConnector's connections close themselves when a prepared
// statement fails other than with PostgreSQL's error (a timeout, a cut
// connection), so that database/sql drops them rather than hand one, the
// rest of its response unread, to the next caller: pgdriver does so after a
// simple query but not after a prepared statement.
type droppingConnector struct {
	*pgdriver.Connector
	io time.Duration // SessionLimits.IOTimeout
}

func (c droppingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if _, ok := ctx.Deadline(); !ok && c.io > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.io)
		defer cancel()
	}
	pc, err := ConnectPG(ctx, c.Connector)
	if err != nil {
		return nil, err
	}
	return droppingConn{pc, c.io}, nil
}

// ConnectPG connects through c, pgdriver's connector, and returns its
// connection as the *pgdriver.Conn it is: what a connector that wraps
// pgdriver's connections (Open's, pgtest's recording one) builds on.
func ConnectPG(ctx context.Context, c driver.Connector) (*pgdriver.Conn, error) {
	cn, err := c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := cn.(*pgdriver.Conn)
	if !ok {
		_ = cn.Close()
		return nil, fmt.Errorf("postgres: pgdriver made a %T", cn)
	}
	return pc, nil
}

// Driver is pgdriver's, telling the statements' spans the database's name
// (databaseOf): database/sql hands out nothing else of the connector.
func (c droppingConnector) Driver() driver.Driver {
	return namedDriver{c.Connector.Driver(), c.Config().Database}
}

type namedDriver struct {
	driver.Driver
	database string
}

// databaseOf is the name of db's database when Open made db, else "".
func databaseOf(db *sql.DB) string {
	d, _ := db.Driver().(namedDriver)
	return d.database
}

type droppingConn struct {
	*pgdriver.Conn
	io time.Duration // bounds COMMIT and ROLLBACK, which run without a context; 0: never
}

func (c droppingConn) PrepareContext(ctx context.Context, query string) (st driver.Stmt, err error) {
	if err = c.call(ctx, func() error { st, err = c.Conn.PrepareContext(ctx, query); return c.dropOn(err) }); err != nil {
		return nil, err
	}
	return droppingStmt{st, c}, nil
}

// dropOn closes the connection unless err is nil or PostgreSQL's own
// (after which the connection is in step).
func (c droppingConn) dropOn(err error) error {
	var pgErr pgdriver.Error
	if err != nil && !errors.As(err, &pgErr) {
		_ = c.Close()
	}
	return err
}

type droppingStmt struct {
	driver.Stmt
	cn droppingConn
}

func (s droppingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (res driver.Result, err error) {
	err = s.cn.call(ctx, func() error {
		res, err = s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
		return s.cn.dropOn(err)
	})
	return res, err
}

func (s droppingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.cn.query(ctx, func() (driver.Rows, error) {
		rows, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
		return rows, s.cn.dropOn(err)
	})
}

// DBErr is the error of a statement as the domain names it (dbErr): what
// the context packages' repositories return.
func DBErr(err error) error { return dbErr(err) }

// dbErr translates driver errors into the domain's: a lost or refused
// connection becomes domain.ErrUnavailable; a deadline that passed, a
// statement cancelled by statement_timeout and a lock not granted within
// lock_timeout domain.ErrTimeout; a unique violation domain.ErrConflict;
// sql.ErrNoRows domain.ErrNotFound. The original error stays wrapped for
// logs.
func dbErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, domain.ErrUnavailable) || errors.Is(err, domain.ErrTimeout) ||
		errors.Is(err, domain.ErrNotFound) || errors.Is(err, domain.ErrConflict) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return domain.ErrNotFound
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		code := pgErr.Field('C')
		switch {
		case code == "23505":
			return fmt.Errorf("%w: %w", domain.ErrConflict, err)
		case code == "57014" || code == "55P03" || code == "25P03": // statement, lock, idle-in-transaction timeouts
			return fmt.Errorf("%w: %w", domain.ErrTimeout, err)
		case len(code) == 5 && (code[:2] == "08" || code[:2] == "53" || code == "57P01" || code == "57P02" || code == "57P03"):
			return fmt.Errorf("%w: %w", domain.ErrUnavailable, err)
		}
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w: %w", domain.ErrTimeout, err)
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return fmt.Errorf("%w: %w", domain.ErrUnavailable, err)
	}
	return err
}
