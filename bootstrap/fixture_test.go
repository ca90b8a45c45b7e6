package bootstrap_test

import (
	"github.com/acme3pl/fulfillment/domain"
	fixtureports "github.com/acme3pl/fulfillment/ports/fixture"
)

func graphFixture() fixtureports.Fixture {
	return fixtureports.Fixture{
		Organizations: []domain.Organization{{ID: "org_graph", Name: "Graph"}},
		Warehouses: []fixtureports.Warehouse{{
			Warehouse: domain.Warehouse{
				ID: "wh_graph", Name: "Graph DC", Active: true, Tags: []string{},
				Address: domain.Address{Name: "Graph DC", Line1: "1 Way", City: "Newark", State: "NJ", CountryCode: "US", PostalCode: "07102"},
				Contact: domain.Contact{Name: "Ops", Email: "ops@example.com", PhoneNumber: "+1 555 0100"},
			},
			Organizations: []string{"org_graph"},
		}},
	}
}
