// Package graphql serves a Stargate-compatible CQL-first GraphQL API
// generated from the catalog, and an offline playground.
//
// Routes (see Server.Register):
//
//	/graphql/{keyspace}  queries and mutations on a keyspace's tables
//	/graphql-schema      keyspace and table descriptions, DDL mutations
//	/playground          GraphiQL, embedded (no network access)
//
// Names, types, arguments and results follow Stargate v2's CQL-first API
// (io.stargate.sgv2.graphql.schema.cqlfirst): a table t gets a query field
// t(value, filter, orderBy, options) and mutations insertt, updatet,
// deletet and bulkInsertt. Schemas are generated per keyspace and rebuilt
// when the keyspace changes in the coordinator's catalog.
//
// Resolvers build CQL text with bind markers and run it through a
// proxy.Session (one per HTTP request): statements are prepared, values
// are serialized for the prepared bind types, and every request is routed
// and captured exactly like a CQL client's.
//
// Plain table queries (plan.go) skip graphql-go's executor: a cached
// document of table queries with scalar columns is compiled once into a
// plan that coerces arguments with the executor's own functions, queries
// through the resolvers' selectRows, and writes rows straight into the
// response; everything else, and every mutation, runs in graphql-go
// (Config.NoCompiledPlans: always).
package graphql
