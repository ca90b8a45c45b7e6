// Package access declares the ports of who may call the API and how often:
// API keys and their generator, the storefront's webhook secrets, the
// verifiers of tokens, keys and signatures, the principal they make, and
// the organizations' own rate limits. Imported as accessports.
package access
