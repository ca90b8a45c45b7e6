// Package ports declares the interfaces the application needs from the
// outside world (storage, identity, clock, IDs) and their small boundary
// types. Adapters implement them; bootstrap binds them.
//
// One file per context, named as its packages in domain/ and application/
// are: shipping.go, intake.go, warehouse.go, invoicing.go, billing.go,
// events.go; the shared kernel's in ports.go (the unit of work, the
// repositories of a transaction, clock, IDs, pages), warehouses.go
// (organizations and their warehouses), identity.go, fixtures.go and
// rate_limits.go.
package ports
