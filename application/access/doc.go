// Package access holds the use cases of who may call the service and where
// to: an organization's API keys (create, revoke, list: `fulfillment apikey`,
// the console) and the warehouses an organization may use (GET
// /v0/warehouses).
package access
