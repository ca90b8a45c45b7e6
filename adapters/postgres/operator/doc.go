// Package operator is the operator context's part of the postgres adapter:
// the console's sessions and one-time sign-in links (operatorports), on the
// kit of adapters/postgres (its runner, statements and errors).
package operator
