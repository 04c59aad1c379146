package kv

import "context"

// The catalog is shared by every engine over one store (a tier of dohyo
// instances over one HBase): the engine commits it through SharedSchema
// when the store has it, with a compare-and-set on a version the store
// keeps.

// SchemaMeta is the persisted schema: the encoded catalog and table salts,
// with the version the store keeps for them (0: never committed).
type SchemaMeta struct {
	Version int64
	Catalog []byte
	Salts   []byte
}

// SharedSchema is implemented by KV stores that several processes share.
// Stores without it get an in-process equivalent over GetMeta/PutMeta.
type SharedSchema interface {
	// SchemaVersion reads the committed version only (one small read).
	SchemaVersion(ctx context.Context) (int64, error)
	// ReadSchema reads version, catalog and salts as one consistent value.
	ReadSchema(ctx context.Context) (SchemaMeta, error)
	// CommitSchema stores m as version prev+1 if the committed version is
	// still prev, atomically; false means another writer committed first.
	CommitSchema(ctx context.Context, prev int64, m SchemaMeta) (bool, error)
}
