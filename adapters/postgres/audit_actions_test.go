package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/acme3pl/fulfillment/adapters/identity"
	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgaccess "github.com/acme3pl/fulfillment/adapters/postgres/access"
	"github.com/acme3pl/fulfillment/adapters/system"
	"github.com/acme3pl/fulfillment/application"
	accessapp "github.com/acme3pl/fulfillment/application/access"
	shippingapp "github.com/acme3pl/fulfillment/application/shipping"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/domain/audit"
	"github.com/acme3pl/fulfillment/domain/shipping"
	auditports "github.com/acme3pl/fulfillment/ports/audit"
)

// auditOf lists the records of org and action, oldest first.
func auditOf(t *testing.T, db *bun.DB, org string, action audit.Action) []audit.Record {
	t.Helper()
	var out []audit.Record
	err := postgres.NewAuditLog(db).List(context.Background(), auditports.Query{OrganizationID: org}, func(r audit.Record) error {
		if r.Action == action {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// apikey create and revoke: the record names the key's name and scopes,
// never its secret; a revoke again is unchanged; an unknown organization
// or key is not_found, with nothing stored.
func TestAuditAPIKeys(t *testing.T) {
	b, clock := newBillOctober(t)
	billOrg(t, b.db, "org_keys")
	ctx := context.Background()
	uow := postgres.NewUnitOfWork(b.db, pgaccess.Repositories)
	create := accessapp.NewCreateAPIKeyHandler(uow, identity.APIKeyGenerator{}, clock, system.IDs{}, domain.Sandbox)
	revoke := accessapp.NewRevokeAPIKeyHandler(uow, clock, system.IDs{})
	c := accessapp.CreateAPIKey{Actor: operator, OrganizationID: "org_keys", Name: "shop", Scopes: []domain.Scope{domain.ScopeShipments}}
	plain, err := create.Handle(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	c.OrganizationID = "org_nokeys"
	if _, err := create.Handle(ctx, c); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a key of an unknown organization: %v", err)
	}
	keys, err := postgres.NewRepositories(b.db, pgaccess.Repositories).APIKeys.ListByOrganization(ctx, "org_keys")
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	for range 2 {
		if _, err := revoke.Handle(ctx, accessapp.RevokeAPIKey{Actor: operator, KeyID: keys[0].ID}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := revoke.Handle(ctx, accessapp.RevokeAPIKey{Actor: operator, KeyID: "key_nope"}); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("an unknown key: %v", err)
	}
	if n := countRows(t, b.db, `SELECT count(*) FROM api_keys`); n != 1 {
		t.Fatalf("%d keys stored, want 1", n)
	}
	created := auditOf(t, b.db, "org_keys", audit.APIKeysCreate)
	checkAudit(t, created, "org_keys", audit.Done)
	checkAudit(t, auditOf(t, b.db, "org_nokeys", audit.APIKeysCreate), "org_nokeys", "not_found")
	if in := inputOf(t, created[0]); in["name"] != "shop" || in["scopes"].([]any)[0] != "shipments" || len(in) != 3 {
		t.Errorf("input %s", created[0].Input)
	}
	if strings.Contains(string(created[0].Input), plain) || strings.Contains(string(created[0].Input), plain[len(plain)-12:]) {
		t.Errorf("input %s holds the key's secret", created[0].Input)
	}
	revoked := auditOf(t, b.db, "org_keys", audit.APIKeysRevoke)
	checkAudit(t, revoked, "org_keys", audit.Done, audit.Unchanged)
	if in := inputOf(t, revoked[0]); in["keyId"] != keys[0].ID {
		t.Errorf("input %s", revoked[0].Input)
	}
	// An unknown key names no organization.
	checkAudit(t, auditRecords(t, b.db, audit.APIKeysRevoke)[2:], "", "not_found")
}

// orgs limit: the rate and burst, or --default, done; an unknown
// organization not_found.
func TestAuditOrgsLimit(t *testing.T) {
	b, clock := newBillOctober(t)
	billOrg(t, b.db, "org_lim")
	ctx := context.Background()
	set := application.NewSetOrganizationLimitHandler(postgres.NewUnitOfWork(b.db, pgaccess.Repositories), clock, system.IDs{})
	limit, err := domain.ParseRateLimit("50/s", 80)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Handle(ctx, application.SetOrganizationLimit{Actor: operator, OrganizationID: "org_lim", Limit: &limit}); err != nil {
		t.Fatal(err)
	}
	if _, err := set.Handle(ctx, application.SetOrganizationLimit{Actor: operator, OrganizationID: "org_lim"}); err != nil {
		t.Fatal(err)
	}
	if _, err := set.Handle(ctx, application.SetOrganizationLimit{Actor: operator, OrganizationID: "org_nolim", Limit: &limit}); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("an unknown organization: %v", err)
	}
	recs := auditOf(t, b.db, "org_lim", audit.OrgsLimit)
	checkAudit(t, recs, "org_lim", audit.Done, audit.Done)
	if in := inputOf(t, recs[0]); in["rate"] != "50/s" || in["burst"] != float64(80) {
		t.Errorf("input %s", recs[0].Input)
	}
	if in := inputOf(t, recs[1]); in["default"] != true {
		t.Errorf("input %s", recs[1].Input)
	}
	checkAudit(t, auditOf(t, b.db, "org_nolim", audit.OrgsLimit), "org_nolim", "not_found")
}

// A shipment cancelled by an operator is recorded; cancelled again it is
// invalid_state; the organization's own cancel through the API (no
// operator) records nothing.
func TestAuditShipmentsCancel(t *testing.T) {
	n, db, _ := shipRepoFixture(t)
	u := newShipUseCases(db)
	ctx := context.Background()
	org := n("org_ship_repo")
	line := shipping.ShipmentLine{ItemID: n("ctn_ship_repo_1"), SKU: "C-1", Quantity: 1}
	byOperator, byAPI := u.draft(t, org, n("wh_ship_repo"), line), u.draft(t, org, n("wh_ship_repo"), line)
	op := operator
	for range 2 {
		_, _ = u.cancel.Handle(ctx, shippingapp.CancelShipment{OrganizationID: org, ShipmentID: byOperator, Operator: &op})
	}
	if _, err := u.cancel.Handle(ctx, shippingapp.CancelShipment{OrganizationID: org, ShipmentID: byAPI}); err != nil {
		t.Fatal(err)
	}
	recs := auditOf(t, db, org, audit.ShipmentsCancel)
	checkAudit(t, recs, org, audit.Done, "invalid_state")
	if in := inputOf(t, recs[0]); in["shipmentId"] != byOperator || in["organizationId"] != org {
		t.Errorf("input %s", recs[0].Input)
	}
}
