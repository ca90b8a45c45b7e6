package bootstrap_test

import (
	"github.com/acme3pl/fulfillment/domain"
	"github.com/acme3pl/fulfillment/ports"
)

func graphFixture() ports.Fixture {
	return ports.Fixture{
		Organizations: []domain.Organization{{ID: "org_graph", Name: "Graph"}},
		Warehouses: []ports.FixtureWarehouse{{
			Warehouse: domain.Warehouse{
				ID: "wh_graph", Name: "Graph DC", Active: true, Tags: []string{},
				Address: domain.Address{Name: "Graph DC", Line1: "1 Way", City: "Newark", State: "NJ", CountryCode: "US", PostalCode: "07102"},
				Contact: domain.Contact{Name: "Ops", Email: "ops@example.com", PhoneNumber: "+1 555 0100"},
			},
			Organizations: []string{"org_graph"},
		}},
	}
}
