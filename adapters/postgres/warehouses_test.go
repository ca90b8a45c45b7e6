package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/acme3pl/fulfillment/adapters/postgres"
	pgaccess "github.com/acme3pl/fulfillment/adapters/postgres/access"
	"github.com/acme3pl/fulfillment/adapters/postgres/pgtest"
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

func warehouse(id, name string, active bool) domain.Warehouse {
	return domain.Warehouse{
		ID: id, Name: name, Active: active, Tags: []string{},
		Address: domain.Address{Name: name, Line1: "1 Way", City: "Newark", State: "NJ", CountryCode: "US", PostalCode: "07102"},
		Contact: domain.Contact{Name: "Ops", Email: "ops@example.com", PhoneNumber: "+1 555 0100"},
	}
}

func load(t *testing.T, f fixtureports.Fixture) fixtureports.Counts {
	t.Helper()
	return pgtest.Load(t, testDSN, f)
}

func TestWarehousesListActive(t *testing.T) {
	desc := "has a description"
	withDesc := warehouse("wh_lst_b2", "Bravo", true)
	withDesc.Description = &desc
	withDesc.Tags = []string{"ambient", "bonded"}
	load(t, fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: "org_wh_a", Name: "A"}, {ID: "org_wh_b", Name: "B"}},
		Warehouses: []fixtureports.Warehouse{
			{Warehouse: warehouse("wh_lst_c", "Charlie", true), Organizations: []string{"org_wh_a"}},
			{Warehouse: warehouse("wh_lst_b1", "Bravo", true), Organizations: []string{"org_wh_a", "org_wh_b"}},
			{Warehouse: withDesc, Organizations: []string{"org_wh_a"}},
			{Warehouse: warehouse("wh_lst_a", "Alpha", false), Organizations: []string{"org_wh_a"}}, // inactive
			{Warehouse: warehouse("wh_lst_z", "Zulu", true), Organizations: []string{"org_wh_b"}},   // other org
			{Warehouse: warehouse("wh_lst_n", "Nobody's", true), Organizations: nil},                // no org
		},
	})
	repo := postgres.NewRepositories(pgtest.Open(t, testDSN), pgaccess.Repositories).Warehouses
	ctx := context.Background()

	tests := []struct {
		name     string
		page     ports.Page
		wantIDs  []string
		wantMore bool
	}{
		{"first page", ports.Page{Skip: 0, Take: 10}, []string{"wh_lst_b1", "wh_lst_b2", "wh_lst_c"}, false},
		{"ties on name broken by id", ports.Page{Skip: 0, Take: 2}, []string{"wh_lst_b1", "wh_lst_b2"}, true},
		{"second page", ports.Page{Skip: 2, Take: 2}, []string{"wh_lst_c"}, false},
		{"past the end", ports.Page{Skip: 5, Take: 2}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, more, err := repo.ListActive(ctx, "org_wh_a", tt.page)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, w := range ws {
				ids = append(ids, w.ID)
			}
			if !equal(ids, tt.wantIDs) || more != tt.wantMore {
				t.Fatalf("ids %v more %v, want %v %v", ids, more, tt.wantIDs, tt.wantMore)
			}
		})
	}

	ws, _, err := repo.ListActive(ctx, "org_wh_a", ports.Page{Take: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := ws[1]
	if got.Description == nil || *got.Description != desc || !equal(got.Tags, []string{"ambient", "bonded"}) ||
		got.Address.CountryCode != "US" || got.Contact.Email != "ops@example.com" {
		t.Fatalf("warehouse fields not round-tripped: %+v", got)
	}
	if ws[0].Tags == nil {
		t.Fatal("tags must be an empty slice, not nil")
	}

	if _, err := repo.ActiveForOrganization(ctx, "org_wh_b", "wh_lst_c"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another organization's warehouse: err %v, want ErrNotFound", err)
	}
	if _, err := repo.ActiveForOrganization(ctx, "org_wh_a", "wh_lst_a"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("inactive warehouse: err %v, want ErrNotFound", err)
	}
	if w, err := repo.ActiveForOrganization(ctx, "org_wh_b", "wh_lst_b1"); err != nil || w.ID != "wh_lst_b1" {
		t.Fatalf("shared warehouse: %v %v", w.ID, err)
	}

	for id, want := range map[string]bool{"wh_lst_b1": true, "wh_lst_a": false, "wh_unknown": false} {
		if got, err := repo.IsActive(ctx, id); err != nil || got != want {
			t.Errorf("IsActive(%s) = %v, %v; want %v", id, got, err, want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
