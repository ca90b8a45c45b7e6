// Package operator is the console's sign-in (docs/console.md): one-time
// sign-in links (sandbox only), sessions started after the OpenID
// Connect sign-in, resumed by the cookie at each request, ended by logout
// or revoked by subject. Sessions live in the database (ports.OperatorSessions),
// keyed by the SHA-256 of the cookie's random value.
package operator
