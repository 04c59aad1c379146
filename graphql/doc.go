// Package graphql serves a Stargate-compatible CQL-first GraphQL API
// generated from the catalog, and an offline playground.
package graphql
