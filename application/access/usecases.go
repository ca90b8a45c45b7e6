package access

import (
	"github.com/acme3pl/fulfillment/application"
	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

// UseCases are the API keys' and the warehouse list's use cases, each with
// its span and log line.
type UseCases struct {
	CreateAPIKey application.Handler[CreateAPIKey, string]
	RevokeAPIKey application.Handler[RevokeAPIKey, struct{}]
	ListAPIKeys  application.Handler[ListAPIKeys, []domain.APIKey]

	ListWarehouses application.Handler[ListWarehouses, WarehousePage]
}

// New builds the use cases; keys makes the API keys.
func New(d application.Deps[accessports.Repositories], keys accessports.APIKeyGenerator) *UseCases {
	return &UseCases{
		CreateAPIKey: application.Decorate("CreateAPIKey", NewCreateAPIKeyHandler(d.UnitOfWork, keys, d.Clock, d.IDs, d.Environment),
			d.Tracer, d.Log),
		RevokeAPIKey: application.Decorate("RevokeAPIKey", NewRevokeAPIKeyHandler(d.UnitOfWork, d.Clock, d.IDs), d.Tracer, d.Log),
		ListAPIKeys:  application.Decorate("ListAPIKeys", NewListAPIKeysHandler(d.Repos.APIKeys), d.Tracer, d.Log),

		ListWarehouses: application.Decorate("ListWarehouses", NewListWarehousesHandler(d.Repos.Warehouses), d.Tracer, d.Log),
	}
}
