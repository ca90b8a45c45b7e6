// Package operator declares the ports of the console's sign-in: its
// sessions and one-time links, and the operator context's Repositories.
// Imported as operatorports.
package operator
