package domain

// Scope is a permission carried by an access token or an API key.
type Scope string

// The scopes the service checks.
const (
	ScopeLocations Scope = "locations"
	ScopeInvoices  Scope = "invoices"
	ScopeShipments Scope = "shipments"
	ScopeInventory Scope = "inventory"
)

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
