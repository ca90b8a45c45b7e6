package bootstrap_test

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/acme3pl/fulfillment/bootstrap"
	"github.com/acme3pl/fulfillment/domain"
)

func TestConsoleConfig(t *testing.T) {
	cfg, err := bootstrap.Load(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ConsoleAddr != "" || cfg.ConsoleURL != "" || cfg.ConsoleOIDCRolesClaim != "roles" {
		t.Fatalf("defaults: addr %q, url %q, roles claim %q; want no console, roles", cfg.ConsoleAddr, cfg.ConsoleURL, cfg.ConsoleOIDCRolesClaim)
	}
	for addr, url := range map[string]string{
		"127.0.0.1:8081": "http://127.0.0.1:8081", ":8081": "http://127.0.0.1:8081", "0.0.0.0:9000": "http://127.0.0.1:9000",
		"console.local:80": "http://console.local:80",
	} {
		cfg, err := bootstrap.Load(map[string]string{"CONSOLE_ADDR": addr})
		if err != nil || cfg.ConsoleURL != url {
			t.Errorf("CONSOLE_ADDR %s: url %q, %v; want %s", addr, cfg.ConsoleURL, err, url)
		}
	}
	cfg, err = bootstrap.Load(map[string]string{"CONSOLE_ADDR": ":8081", "CONSOLE_URL": "https://console.example.com/"})
	if err != nil || cfg.ConsoleURL != "https://console.example.com" {
		t.Errorf("CONSOLE_URL: %q %v", cfg.ConsoleURL, err)
	}
	for name, c := range map[string]struct {
		environ map[string]string
		want    string
	}{
		"address without port":  {map[string]string{"CONSOLE_ADDR": "localhost"}, "CONSOLE_ADDR"},
		"the API's address":     {map[string]string{"CONSOLE_ADDR": ":8080"}, "CONSOLE_ADDR"},
		"URL with a path":       {map[string]string{"CONSOLE_URL": "https://example.com/console"}, "CONSOLE_URL"},
		"URL of another scheme": {map[string]string{"CONSOLE_URL": "ftp://example.com"}, "CONSOLE_URL"},
		"issuer that is a path": {map[string]string{"CONSOLE_OIDC_ISSUER": "/idp", "CONSOLE_OIDC_CLIENT_ID": "c"}, "CONSOLE_OIDC_ISSUER"},
		"issuer without client": {map[string]string{"CONSOLE_OIDC_ISSUER": "https://idp.example.com"}, "CONSOLE_OIDC_CLIENT_ID"},
		"empty roles claim":     {map[string]string{"CONSOLE_OIDC_ROLES_CLAIM": " "}, "CONSOLE_OIDC_ROLES_CLAIM"},
	} {
		if _, err := bootstrap.Load(c.environ); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one naming %s", name, err, c.want)
		}
	}
}

func TestConsoleRequiresAnIssuerInProduction(t *testing.T) {
	cfg := testConfig(t)
	cfg.ConsoleAddr, cfg.ConsoleURL = "127.0.0.1:0", "http://127.0.0.1:8081"
	if err := cfg.RequireConsole(); err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	var stderr bytes.Buffer
	if err := fx.ValidateApp(bootstrap.Options(cfg, &stderr)...); err != nil {
		t.Fatalf("the graph with the console does not validate: %v", err)
	}
	cfg.Environment = domain.Production
	if err := cfg.RequireConsole(); err == nil || !strings.Contains(err.Error(), "CONSOLE_OIDC_ISSUER") {
		t.Fatalf("production without an issuer: %v", err)
	}
	cfg.ConsoleOIDCIssuer, cfg.ConsoleOIDCClientID = "https://idp.example.com", "console"
	if err := cfg.RequireConsole(); err != nil {
		t.Fatalf("production with an issuer: %v", err)
	}
}
