module github.com/acme3pl/fulfillment/bench/baseline

go 1.26.0

require (
	github.com/acme3pl/fulfillment v0.0.0
	github.com/jackc/pgx/v5 v5.7.6
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.2 // indirect
	golang.org/x/crypto v0.57.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

// The tests compare with the service's own packages, in this checkout.
replace github.com/acme3pl/fulfillment => ../..
