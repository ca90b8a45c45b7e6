// Package application holds the use cases of the service, one file each:
// commands change state, queries read it. Use cases depend on ports only and
// each runs inside one span and one log line (see Decorate).
package application
