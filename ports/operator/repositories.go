package operator

// Repositories are the operator context's repositories, bound to one
// database handle: a unit of work's transaction
// (ports.UnitOfWork[Repositories]), or the pool.
type Repositories struct {
	OperatorSessions Sessions
}
