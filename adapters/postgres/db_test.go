package postgres

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"database/sql/driver"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/acme3pl/fulfillment/domain"
)

// testCert is a self-signed certificate (its own CA) with its key and PEM.
type testCert struct {
	tls  tls.Certificate
	x509 *x509.Certificate
	pem  []byte
}

// newTestCert makes a self-signed certificate for the given DNS names and IP
// addresses.
func newTestCert(t *testing.T, dnsNames []string, ips []net.IP) testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "fake postgres"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              dnsNames,
		IPAddresses:           ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return testCert{
		tls:  tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: parsed},
		x509: parsed,
		pem:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
	}
}

// writeFile writes b to a file in the test's temporary directory and
// returns its path escaped for a DSN's query.
func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return url.QueryEscape(path)
}

// sslRequest is the 8 bytes a PostgreSQL client sends to ask for TLS:
// length 8, code 80877103.
var sslRequest = []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}

// fakeTLSPostgres is a PostgreSQL endpoint that only does the TLS part:
// it reads the SSLRequest, answers 'S', runs the TLS handshake with cert and
// closes the connection. The result of each handshake (nil on success) is
// sent on handshakes.
type fakeTLSPostgres struct {
	port       int
	handshakes chan error
}

func startFakeTLSPostgres(t *testing.T, cert tls.Certificate) *fakeTLSPostgres {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeTLSPostgres{port: ln.Addr().(*net.TCPAddr).Port, handshakes: make(chan error, 16)}
	done := make(chan struct{})
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			f.handshakes <- f.serve(conn, cert)
		}
	}()
	return f
}

func (f *fakeTLSPostgres) serve(conn net.Conn, cert tls.Certificate) error {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, len(sslRequest))
	if _, err := io.ReadFull(conn, buf); err != nil {
		return fmt.Errorf("read SSLRequest: %w", err)
	}
	if !bytes.Equal(buf, sslRequest) {
		return fmt.Errorf("client sent %x, want the SSLRequest %x", buf, sslRequest)
	}
	if _, err := conn.Write([]byte{'S'}); err != nil {
		return err
	}
	tc := tls.Server(conn, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	return tc.Handshake()
}

// ping opens dsn with Open and pings it once.
func ping(t *testing.T, dsn string) error {
	t.Helper()
	db, err := Open(Options{DSN: dsn, MaxOpenConns: 1})
	if err != nil {
		t.Fatalf("Open(%s) = %v", dsn, err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// isCertificateError reports whether err is a refusal of the server's
// certificate.
func isCertificateError(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid)
}

// serverHandshake is the fake server's result of the handshake of the ping.
func serverHandshake(t *testing.T, f *fakeTLSPostgres) error {
	t.Helper()
	select {
	case err := <-f.handshakes:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the client never connected to the fake server")
		return nil
	}
}

// pgdriver alone does not verify the server's certificate;
// with sslmode=verify-full (or verify-ca) a wrong certificate must be
// refused.
func TestTLSVerifyRefusesWrongCertificates(t *testing.T) {
	loopback := newTestCert(t, nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	otherHost := newTestCert(t, []string{"other.example"}, nil)
	otherCA := newTestCert(t, nil, []net.IP{net.IPv4(127, 0, 0, 1)})

	tests := []struct {
		name     string
		server   testCert
		mode     string
		rootCert []byte // PEM for sslrootcert; nil: the system's roots
		wantErr  any    // pointer to the error type errors.As must find
	}{
		{"verify-full, unknown authority", loopback, "verify-full", nil, new(x509.UnknownAuthorityError)},
		{"verify-full, trusted CA of another host", otherHost, "verify-full", otherHost.pem, new(x509.HostnameError)},
		{"verify-full, certificate of another CA", loopback, "verify-full", otherCA.pem, new(x509.UnknownAuthorityError)},
		{"verify-ca, unknown authority", loopback, "verify-ca", nil, new(x509.UnknownAuthorityError)},
		{"verify-ca, certificate of another CA", otherHost, "verify-ca", otherCA.pem, new(x509.UnknownAuthorityError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startFakeTLSPostgres(t, tt.server.tls)
			dsn := fmt.Sprintf("postgres://u@127.0.0.1:%d/db?sslmode=%s", f.port, tt.mode)
			if tt.rootCert != nil {
				dsn += "&sslrootcert=" + writeFile(t, "root.pem", tt.rootCert)
			}
			err := ping(t, dsn)
			if err == nil || !errors.As(err, tt.wantErr) {
				t.Fatalf("Ping = %v (%T), want the certificate refused", err, err)
			}
			if serverHandshake(t, f) == nil {
				t.Error("the fake server completed the handshake: the client did not refuse the certificate")
			}
		})
	}
}

// The right CA and a certificate for the host: the handshake succeeds, and
// the ping then fails only because the fake server is no PostgreSQL.
func TestTLSVerifyAcceptsTheRightCertificate(t *testing.T) {
	loopback := newTestCert(t, nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	otherHost := newTestCert(t, []string{"other.example"}, nil)
	tests := []struct {
		name   string
		server testCert
		mode   string
	}{
		{"verify-full", loopback, "verify-full"},
		{"verify-ca ignores the host name", otherHost, "verify-ca"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startFakeTLSPostgres(t, tt.server.tls)
			dsn := fmt.Sprintf("postgres://u@127.0.0.1:%d/db?sslmode=%s&sslrootcert=%s",
				f.port, tt.mode, writeFile(t, "root.pem", tt.server.pem))
			err := ping(t, dsn)
			if err == nil {
				t.Fatal("Ping = nil against a fake server that closes after the handshake")
			}
			if isCertificateError(err) {
				t.Fatalf("Ping = %v: the right certificate was refused", err)
			}
			if hs := serverHandshake(t, f); hs != nil {
				t.Errorf("server handshake = %v, want success", hs)
			}
		})
	}
}

func TestTLSConfig(t *testing.T) {
	ca := newTestCert(t, []string{"db.example"}, nil)
	caFile := writeFile(t, "ca.pem", ca.pem)
	garbage := writeFile(t, "garbage.pem", []byte("not a certificate"))
	missing := url.QueryEscape(filepath.Join(t.TempDir(), "absent.pem"))

	tests := []struct {
		dsn             string
		wantNil         bool // TLS off
		wantSkipVerify  bool // encryption without (built-in) verification
		wantCustomCheck bool // the chain is verified by a hook (verify-ca)
		wantServerName  string
		wantErr         bool
	}{
		{dsn: "postgres://u@db.example:5432/f?sslmode=disable", wantNil: true},
		{dsn: "postgres://u@db.example:5432/f", wantSkipVerify: true, wantServerName: "db.example"},
		{dsn: "postgres://u@db.example:5432/f?sslmode=prefer", wantSkipVerify: true, wantServerName: "db.example"},
		{dsn: "postgres://u@db.example:5432/f?sslmode=require", wantSkipVerify: true, wantServerName: "db.example"},
		{dsn: "postgres://u@db.example:5432/f?sslmode=verify-full", wantServerName: "db.example"},
		{dsn: "postgresql://u@db.example/f?sslmode=verify-full&sslrootcert=" + caFile, wantServerName: "db.example"},
		{dsn: "postgres://u@10.0.0.7:5432/f?sslmode=verify-full", wantServerName: "10.0.0.7"},
		{dsn: "postgres://u@db.example:5432/f?sslmode=verify-ca", wantSkipVerify: true, wantCustomCheck: true, wantServerName: "db.example"},
		{dsn: "postgres://u@db.example:5432/f?sslmode=verify", wantErr: true},
		{dsn: "postgres://u@db.example:5432/f?sslmode=VERIFY-FULL", wantErr: true},
		{dsn: "postgres://u@db.example:5432/f?sslmode=verify-full&sslrootcert=" + missing, wantErr: true},
		{dsn: "postgres://u@db.example:5432/f?sslmode=verify-full&sslrootcert=" + garbage, wantErr: true},
		{dsn: "mysql://u@db.example:3306/f", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			got, err := tlsConfig(tt.dsn)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("tlsConfig = %+v, nil; want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("tlsConfig = %v, want no error", err)
			}
			if tt.wantNil {
				if got != nil {
					t.Errorf("tlsConfig = %+v, want nil (TLS off)", got)
				}
				return
			}
			if got == nil {
				t.Fatal("tlsConfig = nil, want a TLS configuration")
			}
			if got.InsecureSkipVerify != tt.wantSkipVerify {
				t.Errorf("InsecureSkipVerify = %v, want %v", got.InsecureSkipVerify, tt.wantSkipVerify)
			}
			if hook := got.VerifyConnection != nil || got.VerifyPeerCertificate != nil; hook != tt.wantCustomCheck {
				t.Errorf("verification hook set = %v, want %v", hook, tt.wantCustomCheck)
			}
			if got.ServerName != tt.wantServerName {
				t.Errorf("ServerName = %q, want %q", got.ServerName, tt.wantServerName)
			}
			if got.MinVersion < tls.VersionTLS12 {
				t.Errorf("MinVersion = %x, want at least TLS 1.2", got.MinVersion)
			}
			if !got.InsecureSkipVerify && got.RootCAs == nil {
				t.Error("verification on without root CAs")
			}
		})
	}
}

// With sslrootcert, the file's certificates are the only roots: a server
// certificate signed by a CA of the system pool would not do.
func TestTLSConfigRootCertReplacesSystemRoots(t *testing.T) {
	ca := newTestCert(t, []string{"db.example"}, nil)
	got, err := tlsConfig("postgres://u@db.example/f?sslmode=verify-full&sslrootcert=" + writeFile(t, "ca.pem", ca.pem))
	if err != nil {
		t.Fatal(err)
	}
	want := x509.NewCertPool()
	want.AddCert(ca.x509)
	if !got.RootCAs.Equal(want) {
		t.Error("RootCAs is not exactly the sslrootcert file")
	}
}

func TestDBErr(t *testing.T) {
	other := errors.New("syntax error at or near SELECT")
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name      string
		err       error
		want      error // matched with errors.Is; nil: the result is nil
		wantCause bool  // the original error stays wrapped for logs
	}{
		{"nil", nil, nil, false},
		{"no rows", sql.ErrNoRows, domain.ErrNotFound, false},
		{"wrapped no rows", fmt.Errorf("scan: %w", sql.ErrNoRows), domain.ErrNotFound, false},
		{"connection refused (net.OpError)", refused, domain.ErrUnavailable, true},
		{"connection refused (errno)", syscall.ECONNREFUSED, domain.ErrUnavailable, true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), domain.ErrUnavailable, true},
		{"EOF", io.EOF, domain.ErrUnavailable, true},
		{"unexpected EOF", io.ErrUnexpectedEOF, domain.ErrUnavailable, true},
		{"connection done", sql.ErrConnDone, domain.ErrUnavailable, true},
		{"bad connection (cut in a transaction)", driver.ErrBadConn, domain.ErrUnavailable, true},
		{"deadline", context.DeadlineExceeded, domain.ErrTimeout, true},
		{"network deadline", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, domain.ErrTimeout, true},
		{"already a domain error", fmt.Errorf("insert: %w", domain.ErrConflict), domain.ErrConflict, false},
		{"cancelled by the caller", context.Canceled, context.Canceled, true},
		{"anything else", other, other, true},
	}
	sentinels := []error{domain.ErrNotFound, domain.ErrConflict, domain.ErrUnavailable, domain.ErrTimeout}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dbErr(tt.err)
			if tt.want == nil {
				if got != nil {
					t.Fatalf("dbErr(nil) = %v, want nil", got)
				}
				return
			}
			if !errors.Is(got, tt.want) {
				t.Fatalf("dbErr(%v) = %v, want errors.Is %v", tt.err, got, tt.want)
			}
			for _, s := range sentinels {
				if !errors.Is(s, tt.want) && errors.Is(got, s) {
					t.Errorf("dbErr(%v) = %v, which also matches %v", tt.err, got, s)
				}
			}
			if tt.wantCause && !errors.Is(got, tt.err) {
				t.Errorf("dbErr(%v) = %v lost the original error", tt.err, got)
			}
		})
	}
}
