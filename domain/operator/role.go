// Package operator is the 3PL's own people as the console knows them
// (docs/console.md): who signed in, and the role that decides what they
// may do.
package operator

import (
	"strings"

	"github.com/acme3pl/fulfillment/domain/audit"
)

// Role is what a signed-in person may do. Each role includes those before
// it: a viewer reads every page; ops also replays failed orders and
// cancels shipments; billing also adds charges and credits, closes
// periods, moves invoices' statuses and sets rate cards; admin also
// creates and revokes API keys and sets organizations' rate limits.
type Role int

// The roles, in order.
const (
	NoRole Role = iota
	Viewer
	Ops
	Billing
	Admin
)

var roleNames = [...]string{NoRole: "", Viewer: "viewer", Ops: "ops", Billing: "billing", Admin: "admin"}

// Roles lists the roles in order: the one list of their names.
var Roles = []Role{Viewer, Ops, Billing, Admin}

// String is the role's name (viewer, ops, billing, admin).
func (r Role) String() string {
	if r < NoRole || int(r) >= len(roleNames) {
		return ""
	}
	return roleNames[r]
}

// ParseRole reads a role's name; false for a name that is none.
func ParseRole(name string) (Role, bool) {
	for _, r := range Roles {
		if r.String() == name {
			return r, true
		}
	}
	return NoRole, false
}

// HighestRole is the highest of the named roles that are roles (a
// provider's claim may hold names of other systems' roles); NoRole when
// none is.
func HighestRole(names []string) Role {
	best := NoRole
	for _, n := range names {
		if r, ok := ParseRole(strings.TrimSpace(n)); ok && r > best {
			best = r
		}
	}
	return best
}

// Includes tells whether r may do what need may.
func (r Role) Includes(need Role) bool { return r >= need && need > NoRole }

// Principal is a signed-in person: the provider's subject and e-mail (or
// the sign-in link's subject), and their role.
type Principal struct {
	Subject string
	Email   string
	Role    Role
}

// Actor is the principal as an audit record names it.
func (p Principal) Actor() audit.Actor { return audit.Actor{Subject: p.Subject, Email: p.Email} }
