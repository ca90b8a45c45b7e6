// Package bootstrap wires the service with fx: configuration, one module per
// concern, and the lifecycle (listener bound on start; on stop the server
// drains, then the database closes, then spans are flushed). The server runs
// Options; an operator command runs CommandOptions, the same modules without
// the server (RunCommand). It is the only package that knows fx.
package bootstrap
