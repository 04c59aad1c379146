// Package faulty wraps a bindings.Backend for tests of what sits above a
// backend (the coordinator, the CQL and GraphQL servers, replay, the
// mirror, the CLI): installed Faults delay matching statements, make them
// fail or alter their results. It is never in the product path: a test
// wraps the backend it opened (or the CLI's test harness asks the server to
// wrap its backends when it opens them).
//
// Faults at the storage seam, under the engine, are engine/kv/kvfault.
package faulty
