package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/widecolumn"
)

// BenchmarkPoint compares point writes and reads through the whole embedded
// backend (CQL text -> engine -> Store -> Pebble) with raw Pebble Set/Get of
// the same bytes the engine writes, on memory and on disk, in one run:
//
//	go test -run '^$' -bench BenchmarkPoint ./bindings/embedded/
//
// engine-* run INSERT/SELECT on `kv (k bigint PRIMARY KEY, v text)` with
// 100-byte values; raw-* commit one batch per row holding the engine's
// cells (same key and value layout and sizes) and Get the value cell;
// kv-get is Store.Get of the engine's rows (the KV layer alone).
func BenchmarkPoint(b *testing.B) {
	value := bytes.Repeat([]byte{'v'}, 100)
	const preload = 10_000
	for _, mode := range []string{"memory", "disk"} {
		b.Run(mode, func(b *testing.B) {
			cfg := Config{}
			if mode == "disk" {
				cfg.Dir = b.TempDir()
			}
			be, err := Open(context.Background(), cfg)
			if err != nil {
				b.Fatalf("Open: %v", err)
			}
			defer be.Close()
			setupKV(b, be)
			for k := range int64(preload) {
				mustExec(b, be, insertKV, bigint(k), bindings.Value{Bytes: value})
			}
			tmpl := engineRowTemplate(b, be.Store())
			raw := rawTable{db: be.Store().db, prefix: tablePrefix(1 << 30), tmpl: tmpl}
			for k := range uint64(preload) {
				if err := raw.set(k); err != nil {
					b.Fatalf("raw preload: %v", err)
				}
			}

			// Reads then come from sstables (through the block cache), as in
			// a store that has been running for a while, not from memtables.
			if err := be.Store().db.Flush(); err != nil {
				b.Fatalf("flush: %v", err)
			}

			b.Run("engine-insert", func(b *testing.B) {
				ctx := context.Background()
				req := &bindings.Request{Query: insertKV, Consistency: bindings.One,
					Values: []bindings.Value{{}, {Bytes: value}}}
				k := int64(preload)
				for b.Loop() {
					req.Values[0] = bigint(k)
					k++
					if _, err := be.Execute(ctx, req); err != nil {
						b.Fatal(err)
					}
				}
				opsPerSec(b)
			})
			b.Run("raw-set", func(b *testing.B) {
				k := uint64(preload)
				for b.Loop() {
					if err := raw.set(k); err != nil {
						b.Fatal(err)
					}
					k++
				}
				opsPerSec(b)
			})
			b.Run("engine-select", func(b *testing.B) {
				ctx := context.Background()
				req := &bindings.Request{Query: selectKV, Consistency: bindings.One, Values: []bindings.Value{{}}}
				var k int64
				for b.Loop() {
					req.Values[0] = bigint(k % preload)
					k += 7919 // a prime stride: no locality
					res, err := be.Execute(ctx, req)
					if err != nil || len(res.Rows) != 1 {
						b.Fatalf("SELECT: %d rows, %v", len(res.Rows), err)
					}
				}
				opsPerSec(b)
			})
			b.Run("kv-get", func(b *testing.B) {
				ctx := context.Background()
				spec := engineTable(b, be)
				rows := engineRowKeys(b, be.Store())
				keys := make([][]byte, 1)
				var k int
				for b.Loop() {
					keys[0] = rows[k%len(rows)]
					k += 7919
					res, err := be.Store().Get(ctx, spec, keys)
					if err != nil || len(res[0].Cells) == 0 {
						b.Fatalf("Get: %v, %v", res, err)
					}
				}
				opsPerSec(b)
			})
			b.Run("raw-get", func(b *testing.B) {
				var k uint64
				for b.Loop() {
					if err := raw.get(k % preload); err != nil {
						b.Fatal(err)
					}
					k += 7919
				}
				opsPerSec(b)
			})
		})
	}
}

func opsPerSec(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "ops/s")
	}
}

// engineTable returns the TableSpec the engine uses for ks.kv.
func engineTable(b *testing.B, be *Backend) *widecolumn.TableSpec {
	b.Helper()
	cat, err := be.Catalog(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	t := cat.Keyspaces["ks"].Tables["kv"]
	return &widecolumn.TableSpec{Keyspace: "ks", Name: "kv", ID: t.ID}
}

// engineRowKeys lists the row keys of the engine's only table.
func engineRowKeys(b *testing.B, s *Store) [][]byte {
	b.Helper()
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{dataByte}, UpperBound: tablePrefix(1 << 30)})
	if err != nil {
		b.Fatal(err)
	}
	defer it.Close()
	var rows [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		row, _, err := splitCellKey(it.Key())
		if err != nil {
			b.Fatal(err)
		}
		if len(rows) == 0 || !bytes.Equal(rows[len(rows)-1], row) {
			rows = append(rows, append([]byte(nil), row...))
		}
	}
	return rows
}

// rowTemplate is one row as the engine stored it: the row key and each
// cell's Pebble key suffix (qualifier + length) and stored value.
type rowTemplate struct {
	row      []byte
	suffixes [][]byte
	values   [][]byte
	valueIdx int // the cell holding the column value (the largest)
}

// engineRowTemplate reads the first row the engine wrote back from Pebble.
func engineRowTemplate(b *testing.B, s *Store) rowTemplate {
	b.Helper()
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{dataByte}, UpperBound: []byte{dataByte + 1}})
	if err != nil {
		b.Fatal(err)
	}
	defer it.Close()
	var t rowTemplate
	for ok := it.First(); ok; ok = it.Next() {
		row, q, err := splitCellKey(it.Key())
		if err != nil {
			b.Fatal(err)
		}
		if t.row == nil {
			t.row = append([]byte(nil), row...)
		} else if !bytes.Equal(row, t.row) {
			break
		}
		v, err := it.ValueAndErr()
		if err != nil {
			b.Fatal(err)
		}
		if len(t.values) > 0 && len(v) > len(t.values[t.valueIdx]) {
			t.valueIdx = len(t.values)
		}
		t.suffixes = append(t.suffixes, binary.BigEndian.AppendUint16(append([]byte(nil), q...), uint16(len(q))))
		t.values = append(t.values, append([]byte(nil), v...))
	}
	if t.row == nil {
		b.Fatal("engine wrote no rows")
	}
	return t
}

// rawTable writes template rows under its own prefix, with the row key's
// last bytes replaced by a counter (same length, distinct rows).
type rawTable struct {
	db     *pebble.DB
	prefix []byte
	tmpl   rowTemplate
	buf    []byte
}

func (r *rawTable) key(k uint64, cell int) []byte {
	r.buf = append(append(r.buf[:0], r.prefix...), r.tmpl.row...)
	tail := r.buf[len(r.prefix):]
	var ctr [8]byte
	binary.BigEndian.PutUint64(ctr[:], k)
	n := min(8, len(tail))
	copy(tail[len(tail)-n:], ctr[8-n:])
	return append(r.buf, r.tmpl.suffixes[cell]...)
}

func (r *rawTable) set(k uint64) error {
	batch := r.db.NewBatch()
	defer batch.Close()
	for i, v := range r.tmpl.values {
		if err := batch.Set(r.key(k, i), v, nil); err != nil {
			return err
		}
	}
	return batch.Commit(pebble.NoSync)
}

func (r *rawTable) get(k uint64) error {
	v, closer, err := r.db.Get(r.key(k, r.tmpl.valueIdx))
	if err != nil {
		return err
	}
	_ = v
	return closer.Close()
}
