// Package access is the access context's part of the postgres adapter:
// the API keys, the storefront webhook secrets and the organizations' own
// rate limits (accessports), on the kit of adapters/postgres (its runner,
// statements and errors, and the kit's repositories its Repositories bind).
package access
