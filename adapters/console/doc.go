// Package console is the operator's console (docs/console.md): a driving
// adapter beside the HTTP API and the CLI, over the same use cases, on its
// own listener. Pages are server-rendered HTML from html/template that work
// without JavaScript; every page is a GET of a bookmarkable URL, every
// action a POST of an HTML form. A person signs in by OpenID Connect (or,
// in sandbox, by a one-time link); their session lives in PostgreSQL
// through the operator context's use cases, and their role decides what
// they may do. Every action is recorded in the audit log by the use case
// it calls.
package console
