package bootstrap

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/acme3pl/fulfillment/domain"
)

// validateConsole checks the console's settings (docs/console.md) and
// derives CONSOLE_URL from CONSOLE_ADDR when it is not set.
func (c *Config) validateConsole(environ map[string]string) error {
	if c.ConsoleAddr != "" {
		host, port, err := net.SplitHostPort(c.ConsoleAddr)
		if err != nil || port == "" {
			return fmt.Errorf("CONSOLE_ADDR: %q is not host:port (for example 127.0.0.1:8081)", c.ConsoleAddr)
		}
		if c.ConsoleAddr == c.HTTPAddr {
			return fmt.Errorf("CONSOLE_ADDR: %q is HTTP_ADDR's: the console has a listener of its own", c.ConsoleAddr)
		}
		if c.ConsoleURL == "" {
			if host == "" || host == "0.0.0.0" || host == "::" {
				host = "127.0.0.1"
			}
			c.ConsoleURL = "http://" + net.JoinHostPort(host, port)
		}
	}
	if c.ConsoleURL != "" {
		u, err := url.Parse(c.ConsoleURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
			u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return errors.New("CONSOLE_URL: not an origin such as https://console.example.com (scheme, host and port only)")
		}
		c.ConsoleURL = strings.TrimSuffix(c.ConsoleURL, "/")
	}
	if c.ConsoleOIDCIssuer != "" {
		if u, err := url.Parse(c.ConsoleOIDCIssuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return errors.New("CONSOLE_OIDC_ISSUER: not an http(s) URL")
		}
		if strings.TrimSpace(c.ConsoleOIDCClientID) == "" {
			return errors.New("CONSOLE_OIDC_CLIENT_ID: must be set with CONSOLE_OIDC_ISSUER")
		}
	}
	if raw, set := environ["CONSOLE_OIDC_ROLES_CLAIM"]; strings.TrimSpace(c.ConsoleOIDCRolesClaim) == "" || (set && strings.TrimSpace(raw) == "") {
		return errors.New("CONSOLE_OIDC_ROLES_CLAIM: must not be empty")
	}
	return nil
}

// RequireConsole checks what serving the console needs beyond Load: in
// production, an OpenID provider (sign-in links are sandbox's only).
func (c Config) RequireConsole() error {
	if c.ConsoleAddr != "" && c.Environment == domain.Production && c.ConsoleOIDCIssuer == "" {
		return errors.New("CONSOLE_OIDC_ISSUER must be set to serve the console in production (CONSOLE_ADDR is set)")
	}
	return nil
}
