// Package ports declares the interfaces the application needs from the
// outside world (storage, identity, clock, IDs) and their small boundary
// types. Adapters implement them; bootstrap binds them.
package ports
