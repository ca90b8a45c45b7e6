// Package ports is the kernel of the ports: the generic unit of work,
// clock, IDs and pages (ports.go), and the ports of the kernel's own
// records — organizations and their warehouses (warehouses.go) and the
// console's overview (overview.go). It imports the domain's kernel only.
//
// Each context declares the ports it consumes in a package of its own
// below it, named as its packages in domain/ and application/ are:
// shipping, intake, warehouse, invoicing, billing, operator, events,
// audit, access (API keys, webhook secrets, verifiers, the principal, the
// organizations' rate limits) and fixture (the seed). Each holds its
// context's Repositories: the repositories its use cases use in a
// transaction (what ports.UnitOfWork[Repositories].Do hands fn) and on
// the pool. Adapters implement them; bootstrap binds them.
package ports
