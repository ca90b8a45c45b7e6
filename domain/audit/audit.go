// Package audit is the audit log of the operators' actions (docs/audit.md):
// who did what to which organization, with which arguments, and how it
// ended. A record is written once, in the action's own transaction, and
// never changed.
package audit

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Action names an operator action: the one list of them.
type Action string

// The operator actions (docs/audit.md).
const (
	ChargesAdd      Action = "charges.add"
	BillingClose    Action = "billing.close"
	InvoicesStatus  Action = "invoices.status"
	RatesSet        Action = "rates.set"
	OrgsLimit       Action = "orgs.limit"
	APIKeysCreate   Action = "apikeys.create"
	APIKeysRevoke   Action = "apikeys.revoke"
	OrdersReplay    Action = "orders.replay"
	ShipmentsCancel Action = "shipments.cancel"
)

// Actions lists every action.
var Actions = []Action{
	ChargesAdd, BillingClose, InvoicesStatus, RatesSet, OrgsLimit,
	APIKeysCreate, APIKeysRevoke, OrdersReplay, ShipmentsCancel,
}

// Valid tells an action of the list.
func (a Action) Valid() bool {
	for _, known := range Actions {
		if a == known {
			return true
		}
	}
	return false
}

// Outcome is how an action ended: Done, Unchanged, Forbidden, or the code of
// the error that refused or failed it (invalid_state, reference_conflict,
// not_found, …).
type Outcome string

// The outcomes that are not an error's code.
const (
	// Done: the action changed what it was asked to.
	Done Outcome = "done"
	// Unchanged: a repeat that changed nothing (a charge recorded before
	// with the same content, a close that finalized nothing, a replay of
	// nothing new).
	Unchanged Outcome = "unchanged"
	// Forbidden: refused for the actor's role, before doing anything.
	Forbidden Outcome = "forbidden"
)

var codeForm = regexp.MustCompile(`^[a-z][a-z_]{0,63}$`)

// ErrorOutcome is the outcome of an action refused or failed with the
// error code code.
func ErrorOutcome(code string) Outcome { return Outcome(code) }

// Valid tells an outcome of the set: Done, Unchanged, Forbidden, or an
// error's code (lower case words joined by underscores).
func (o Outcome) Valid() bool { return codeForm.MatchString(string(o)) }

// Actor is who acted: the console's signed-in person (the OIDC subject and
// e-mail) or an operator's command (its --actor NAME, else "cli:" and the
// OS user, with no e-mail).
type Actor struct {
	Subject string `json:"subject"`
	Email   string `json:"email,omitempty"`
}

// ErrNoActor: an operator action without its actor.
var ErrNoActor = errors.New("an operator action needs its actor")

// CLIActor is the actor of an operator's command: name when given (the
// command's --actor), else "cli:" and the OS user (user, or "unknown").
func CLIActor(name, user string) Actor {
	if name = strings.TrimSpace(name); name != "" {
		return Actor{Subject: name}
	}
	if user = strings.TrimSpace(user); user == "" {
		user = "unknown"
	}
	return Actor{Subject: "cli:" + user}
}

// Validate refuses an actor without a subject, or with one or an e-mail
// longer than 320 bytes.
func (a Actor) Validate() error {
	if strings.TrimSpace(a.Subject) == "" {
		return ErrNoActor
	}
	if len(a.Subject) > 320 || len(a.Email) > 320 {
		return fmt.Errorf("%w: its subject and e-mail are at most 320 bytes", ErrNoActor)
	}
	return nil
}

// Record is one entry of the audit log. Input is the action's arguments
// as a JSON object, never a secret. TraceID is the action's trace ("" when
// it ran without one).
type Record struct {
	ID             string
	At             time.Time
	Actor          Actor
	Action         Action
	OrganizationID string
	Input          []byte
	Outcome        Outcome
	TraceID        string
}
