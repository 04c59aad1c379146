// Package bindingtest is the conformance suite every binding must pass: CQL
// scenarios kept as data files under testdata/ (embedded into the package),
// whose expectations are what Cassandra 5.0 returns, run against any
// bindings.Backend by Run. README.md documents the scenario format.
package bindingtest
