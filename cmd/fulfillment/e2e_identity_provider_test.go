package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/acme3pl/fulfillment/cmd/fulfillment/internal/e2e"
)

// The identity provider's fixture: an organization's back office and a
// warehouse's management system, each a client of the operator's identity
// provider that gets its tokens by the client-credentials grant.
const (
	idpOrg       = "org_e2e_idp"
	idpWarehouse = "wh_e2e_idp"
	idpResource  = "https://fulfillment.e2e.test"
)

// TestTokensFromAnIdentityProvider runs a real OAuth 2.0 server (npm's
// oidc-provider) issuing RFC 9068 access tokens (typ at+jwt, RS256) by the
// client-credentials grant, with the organization or warehouse claim per
// client, and the real binary verifying them through AUTH_JWKS_URL — across
// a rotation of the provider's signing key.
func TestTokensFromAnIdentityProvider(t *testing.T) {
	e2e.SeedFixture(t, e2e.TestDSN, map[string]any{
		"organizations": []any{map[string]any{"id": idpOrg, "name": "IdP Org", "defaultWarehouseId": idpWarehouse}},
		"warehouses":    []any{e2e.FixtureWarehouse(idpWarehouse, "IdP East", true, idpOrg)},
		"products":      []any{map[string]any{"id": "prod_e2e_idp", "organizationId": idpOrg, "sku": "IDP-TEE", "name": "Tee"}},
	})
	dir := tool(t, "oidc-provider")
	clients := []map[string]any{
		{"client_id": "back-office", "client_secret": "back-office-secret-0123456789", "claims": map[string]any{"org_id": idpOrg}},
		{"client_id": "wms-east", "client_secret": "wms-east-secret-0123456789", "claims": map[string]any{"warehouse_id": idpWarehouse}},
	}
	keyA, keyB := rsaJWK(t, "key-a"), rsaJWK(t, "key-b")

	addr := e2e.FreeAddr(t)
	idp := startIdentityProvider(t, dir, addr, clients, keyA)
	issuer := "http://" + addr
	srv := e2e.StartServer(t, e2e.BaseEnv(e2e.TestDSN, "AUTH_JWKS_URL="+issuer+"/jwks", "AUTH_ISSUER="+issuer, "AUTH_AUDIENCE="+idpResource))

	orgToken := clientCredentials(t, issuer, "back-office", "back-office-secret-0123456789", "locations invoices")
	wantHeader(t, orgToken, "key-a")
	r := e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+orgToken)
	if r.Status != 200 || !strings.Contains(string(r.Body), idpWarehouse) {
		t.Fatalf("the organization's token: %d %s", r.Status, r.Body)
	}

	// The warehouse's management system reports a receipt with its token,
	// which is not an organization's.
	whToken := clientCredentials(t, issuer, "wms-east", "wms-east-secret-0123456789", "warehouse")
	receipt := map[string]any{"organizationId": idpOrg, "reference": "ASN-IDP-1",
		"items": []any{map[string]any{"productId": "prod_e2e_idp", "quantity": 3}}}
	if r := e2e.Do(t, "POST", srv.URL+"/v0/warehouse/receipts", receipt, "Authorization", "Bearer "+whToken); r.Status != 201 {
		t.Fatalf("the warehouse's token on its route: %d %s", r.Status, r.Body)
	}
	r = e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+whToken)
	e2e.WantProblem(t, r, 403, "insufficient_scope")
	r = e2e.Do(t, "POST", srv.URL+"/v0/warehouse/receipts", receipt, "Authorization", "Bearer "+orgToken)
	e2e.WantProblem(t, r, 403, "insufficient_scope")

	// Key rotation: the provider restarts signing with a new key and still
	// publishing the old one. The service fetches the new key the first time a
	// token names it; tokens of the old key keep working.
	idp.stop(t)
	startIdentityProvider(t, dir, addr, clients, keyB, keyA)
	rotated := clientCredentials(t, issuer, "back-office", "back-office-secret-0123456789", "locations")
	wantHeader(t, rotated, "key-b")
	for name, tok := range map[string]string{"new key": rotated, "old key": orgToken} {
		if r := e2e.Do(t, "GET", srv.URL+"/v0/warehouses", nil, "Authorization", "Bearer "+tok); r.Status != 200 {
			t.Fatalf("%s after the rotation: %d %s", name, r.Status, r.Body)
		}
	}
}

type identityProvider struct {
	cmd  *exec.Cmd
	done chan struct{}
	logs *e2e.SyncBuffer
}

// startIdentityProvider runs cmd/fulfillment/testdata/oidc-provider.mjs on
// addr with keys (the first signs) until the test ends or stop.
func startIdentityProvider(t *testing.T, dir, addr string, clients []map[string]any, keys ...map[string]any) *identityProvider {
	t.Helper()
	_, port, _ := strings.Cut(addr, ":")
	clientsJSON, _ := json.Marshal(clients)
	keysJSON, _ := json.Marshal(keys)
	cmd := exec.Command("node", "testdata/oidc-provider.mjs")
	cmd.Env = append(e2e.BaseEnv(e2e.TestDSN), "OIDC_PROVIDER_DIR="+dir, "PORT="+port, "RESOURCE="+idpResource,
		"CLIENTS="+string(clientsJSON), "KEYS="+string(keysJSON), "NODE_NO_WARNINGS=1")
	p := &identityProvider{cmd: cmd, done: make(chan struct{}), logs: &e2e.SyncBuffer{}}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the identity provider: %v", err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.stop(t) })
	tp := &toolProcess{name: "oidc-provider", logs: p.logs, exited: p.done}
	tp.poll(t, "its discovery document", func() bool {
		return answers200("http://" + addr + "/.well-known/openid-configuration")
	})
	return p
}

func (p *identityProvider) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.done
}

// clientCredentials gets an access token for the service's resource from
// the provider's token endpoint.
func clientCredentials(t *testing.T, issuer, id, secret, scope string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}, "resource": {idpResource}}
	req, err := http.NewRequest(http.MethodPost, issuer+"/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("token endpoint: %d, %v", resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || body.AccessToken == "" || body.TokenType != "Bearer" {
		t.Fatalf("token endpoint for %s: %d %+v", id, resp.StatusCode, body)
	}
	return body.AccessToken
}

// wantHeader checks that tok is an RFC 9068 access token signed by kid.
func wantHeader(t *testing.T, tok, kid string) {
	t.Helper()
	head, _, _ := strings.Cut(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		t.Fatalf("token header: %v", err)
	}
	var h map[string]any
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	if h["typ"] != "at+jwt" || h["alg"] != "RS256" || h["kid"] != kid {
		t.Fatalf("token header %v, want typ at+jwt, RS256, kid %s", h, kid)
	}
}

// rsaJWK is a new RSA private key as a JWK (RFC 7517/7518).
func rsaJWK(t *testing.T, kid string) map[string]any {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	k.Precompute()
	b64 := func(i *big.Int) string { return base64.RawURLEncoding.EncodeToString(i.Bytes()) }
	return map[string]any{
		"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
		"n": b64(k.N), "e": b64(big.NewInt(int64(k.E))), "d": b64(k.D),
		"p": b64(k.Primes[0]), "q": b64(k.Primes[1]),
		"dp": b64(k.Precomputed.Dp), "dq": b64(k.Precomputed.Dq), "qi": b64(k.Precomputed.Qinv),
	}
}
