// Package tier is the membership of a tier: dohyo instances over one
// shared store (HBase) are one cluster. Each instance heartbeats its
// advertised CQL address and loaded schema version into the store
// (bindings.TierRegistry) and lists the others whose heartbeat is recent
// as its peers (system.peers), reporting joins, leaves, deaths and
// returns as native-protocol node events.
package tier
