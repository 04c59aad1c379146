package mirror

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// scanPageSize is the page size of a backfill's or compare's full scans.
const scanPageSize = 500

// tableScan is the full-scan query of one table: its primary key columns,
// then per cell column the value and, where a write time exists (not a
// counter, not a multi-cell collection or UDT), WRITETIME and TTL.
type tableScan struct {
	ks, table string
	key       []*schema.Column // partition key, then clustering
	cells     []*schema.Column // static, then regular
	timed     []bool           // per cell: WRITETIME and TTL are selected
	partLen   int              // how many of key are the partition key
	counter   bool
	query     string
}

func newTableScan(t *schema.Table) *tableScan {
	s := &tableScan{ks: t.Keyspace, table: t.Name, partLen: len(t.PartitionKey), counter: t.Counter}
	s.key = append(append(s.key, t.PartitionKey...), t.Clustering...)
	var sel []string
	for _, c := range s.key {
		sel = append(sel, quoteIdent(c.Name))
	}
	for _, kind := range []schema.ColumnKind{schema.Static, schema.Regular} {
		for _, c := range t.Columns {
			if c.Kind != kind {
				continue
			}
			timed := !t.Counter && c.Type.Kind != cql.KindCounter && !c.Type.MultiCell()
			s.cells = append(s.cells, c)
			s.timed = append(s.timed, timed)
			q := quoteIdent(c.Name)
			sel = append(sel, q)
			if timed {
				sel = append(sel, "WRITETIME("+q+")", "TTL("+q+")")
			}
		}
	}
	s.query = "SELECT " + strings.Join(sel, ", ") + " FROM " + quoteIdent(t.Keyspace) + "." + quoteIdent(t.Name)
	return s
}

// cell is one scanned cell: its value and, when timed, write time and
// remaining TTL (0: none).
type cell struct {
	val   []byte // nil: null (absent)
	wt    int64
	hasWT bool
	ttl   int32
}

// scanRow is one scanned row.
type scanRow struct {
	key   [][]byte
	cells []cell
}

// id is the row's primary key as a map key; part is its partition key's.
func (r *scanRow) id(n int) string {
	var b []byte
	for _, v := range r.key[:n] {
		if v == nil {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return string(b)
}

// scan pages through the table on b, calling fn for every row.
func (s *tableScan) scan(ctx context.Context, b bindings.Backend, fn func(*scanRow) error) error {
	var paging []byte
	for {
		res, err := b.Execute(ctx, &bindings.Request{Query: s.query, Consistency: bindings.One,
			PageSize: scanPageSize, PagingState: paging})
		if err != nil {
			return fmt.Errorf("scan %s.%s: %w", s.ks, s.table, err)
		}
		for _, raw := range res.Rows {
			r, err := s.decode(raw)
			if err != nil {
				return fmt.Errorf("scan %s.%s: %w", s.ks, s.table, err)
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(res.PagingState) == 0 {
			return nil
		}
		paging = res.PagingState
	}
}

func (s *tableScan) decode(raw [][]byte) (*scanRow, error) {
	r := &scanRow{key: raw[:len(s.key)], cells: make([]cell, len(s.cells))}
	i := len(s.key)
	for j := range s.cells {
		if i >= len(raw) {
			return nil, fmt.Errorf("row has %d columns, want more", len(raw))
		}
		c := cell{val: raw[i]}
		i++
		if s.timed[j] {
			if i+1 >= len(raw) {
				return nil, fmt.Errorf("row has %d columns, want more", len(raw))
			}
			if wt := raw[i]; len(wt) == 8 {
				c.wt, c.hasWT = int64(binary.BigEndian.Uint64(wt)), true
			}
			if ttl := raw[i+1]; len(ttl) == 4 {
				c.ttl = int32(binary.BigEndian.Uint32(ttl))
			}
			i += 2
		}
		r.cells[j] = c
	}
	return r, nil
}

// render shows a row's key as CQL literals (for examples).
func (s *tableScan) render(key [][]byte) string {
	parts := make([]string, len(key))
	for i, v := range key {
		parts[i] = s.key[i].Name + "=" + renderValue(s.key[i].Type, v)
	}
	return strings.Join(parts, ", ")
}

func renderValue(t *cql.Type, v []byte) string {
	if v == nil {
		return "null"
	}
	out := cql.FormatValue(t, v)
	if len(out) > 120 {
		out = out[:120] + "…"
	}
	return out
}

// tablesOf returns the tables of keyspace ks on b (one table when table is
// set), from its catalog.
func tablesOf(ctx context.Context, b bindings.Backend, ks, table string) ([]*schema.Table, error) {
	cs, ok := bindings.Capability[bindings.CatalogSource](b)
	if !ok {
		return nil, fmt.Errorf("backend %T cannot list its tables", b)
	}
	cat, err := cs.Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	k := cat.Keyspace(ks)
	if k == nil {
		return nil, bindings.Errorf(bindings.CodeInvalid, "keyspace %q does not exist on the source", ks)
	}
	if table != "" {
		t := k.Tables[table]
		if t == nil {
			return nil, bindings.Errorf(bindings.CodeInvalid, "table %s.%s does not exist on the source", ks, table)
		}
		return []*schema.Table{t}, nil
	}
	var out []*schema.Table
	for _, n := range k.TableNames() {
		out = append(out, k.Tables[n])
	}
	return out, nil
}

// quoteIdent double-quotes an identifier (always: it is case-preserving
// and safe for reserved words).
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
