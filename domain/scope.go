package domain

import (
	"errors"
	"strings"
)

// Scope is a permission carried by an access token or an API key.
type Scope string

// The scopes the service checks.
const (
	ScopeLocations Scope = "locations"
	ScopeInvoices  Scope = "invoices"
	ScopeShipments Scope = "shipments"
	ScopeInventory Scope = "inventory"
	// ScopeWarehouse is held by a warehouse's own tokens (its management
	// system), never by an organization's or an API key.
	ScopeWarehouse Scope = "warehouse"
)

// Scopes are the scopes the service checks, in the order it lists them.
var Scopes = []Scope{ScopeLocations, ScopeInvoices, ScopeShipments, ScopeInventory}

// ParseScope accepts the name of a scope the service checks.
func ParseScope(s string) (Scope, error) {
	for _, sc := range Scopes {
		if string(sc) == s {
			return sc, nil
		}
	}
	return "", Invalid("scopes", "%q is not a scope (locations, invoices, shipments, inventory)", s)
}

// ErrNoScope: a list of scopes names none.
var ErrNoScope = errors.New("no scope")

// ParseScopeList reads names separated by commas (white space around them
// and empty names ignored), each with ParseScope: at least one, else
// ErrNoScope (`apikey create --scopes`, the console's key form).
func ParseScopeList(list string) ([]Scope, error) {
	var scopes []Scope
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		s, err := ParseScope(n)
		if err != nil {
			return nil, err
		}
		scopes = append(scopes, s)
	}
	if len(scopes) == 0 {
		return nil, ErrNoScope
	}
	return scopes, nil
}

// Environment is the deployment's environment; API keys carry it in their prefix.
type Environment string

// The two environments.
const (
	Sandbox    Environment = "sandbox"
	Production Environment = "production"
)

// ParseEnvironment accepts "sandbox" or "production".
func ParseEnvironment(s string) (Environment, error) {
	switch Environment(s) {
	case Sandbox, Production:
		return Environment(s), nil
	}
	return "", Invalid("ENVIRONMENT", "%q is neither sandbox nor production", s)
}
