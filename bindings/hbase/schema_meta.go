package hbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/engine/kv"
)

// The shared schema (kv.SharedSchema) is one row of the catalog
// table, "<catalog>/schema", with three cells: the version (8 bytes, big
// endian), the encoded catalog and the salts. A commit is one CheckAndPut
// on the version cell, so the three change together or not at all, and
// the poll of every instance reads the version cell alone.
//
// Catalogs written before the shared schema (rows "<catalog>/catalog" and
// "<catalog>/salts") are read as version 0; the first commit moves them.

const (
	schemaRow       = "schema"
	schemaVersionQ  = "version"
	schemaCatalogQ  = "catalog"
	schemaSaltsQ    = "salts"
	legacyCatalogK  = "catalog"
	legacySaltsKey  = "salts"
	schemaVersionSz = 8
)

var _ kv.SharedSchema = (*Store)(nil)

// SchemaVersion reads the committed schema version (0: none yet).
func (s *Store) SchemaVersion(ctx context.Context) (int64, error) {
	cells, err := s.getSchemaRow(ctx, schemaVersionQ)
	if err != nil {
		return 0, err
	}
	return decodeSchemaVersion(cells[schemaVersionQ])
}

// ReadSchema reads version, catalog and salts from one row read.
func (s *Store) ReadSchema(ctx context.Context) (kv.SchemaMeta, error) {
	cells, err := s.getSchemaRow(ctx, schemaVersionQ, schemaCatalogQ, schemaSaltsQ)
	if err != nil {
		return kv.SchemaMeta{}, err
	}
	v, err := decodeSchemaVersion(cells[schemaVersionQ])
	if err != nil {
		return kv.SchemaMeta{}, err
	}
	if v > 0 {
		return kv.SchemaMeta{Version: v, Catalog: cells[schemaCatalogQ], Salts: cells[schemaSaltsQ]}, nil
	}
	m := kv.SchemaMeta{}
	if m.Catalog, err = s.GetMeta(ctx, legacyCatalogK); err != nil {
		return m, err
	}
	if m.Salts, err = s.GetMeta(ctx, legacySaltsKey); err != nil {
		return m, err
	}
	return m, nil
}

// CommitSchema writes m as version prev+1 if the version cell still holds
// prev (is absent, for prev 0): one CheckAndPut.
func (s *Store) CommitSchema(ctx context.Context, prev int64, m kv.SchemaMeta) (bool, error) {
	var expected []byte // absent
	if prev > 0 {
		expected = encodeSchemaVersion(prev)
	}
	return s.checkAndPut(ctx, metaTable, metaRowKey(s.catalog, schemaRow), map[string][]byte{
		schemaVersionQ: encodeSchemaVersion(prev + 1),
		schemaCatalogQ: nonNil(m.Catalog),
		schemaSaltsQ:   nonNil(m.Salts),
	}, schemaVersionQ, expected, "commit schema")
}

// getSchemaRow reads the named cells of the schema row; missing cells are
// absent from the map.
func (s *Store) getSchemaRow(ctx context.Context, qualifiers ...string) (map[string][]byte, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	g, err := hrpc.NewGet(octx, []byte(metaTable), metaRowKey(s.catalog, schemaRow),
		hrpc.Families(map[string][]string{family: qualifiers}))
	if err != nil {
		return nil, err
	}
	res, err := s.client.Get(g)
	if err != nil {
		return nil, s.wrapErr(ctx, "read schema", err)
	}
	out := make(map[string][]byte, len(qualifiers))
	for _, c := range res.Cells {
		if string(c.Family) == family {
			out[string(c.Qualifier)] = bytes.Clone(c.Value)
		}
	}
	return out, nil
}

func encodeSchemaVersion(v int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, schemaVersionSz), uint64(v))
}

func decodeSchemaVersion(b []byte) (int64, error) {
	if b == nil {
		return 0, nil
	}
	if len(b) != schemaVersionSz {
		return 0, fmt.Errorf("hbase: schema version cell has %d bytes, want %d", len(b), schemaVersionSz)
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
