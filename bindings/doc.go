// Package bindings is the seam between the coordinator and storage systems:
// the Backend interface, request and result types, optional capability
// interfaces found by type assertion, and sentinel errors that map one-to-one
// to CQL error codes.
package bindings
