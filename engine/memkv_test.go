package engine

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"sync"

	"github.com/dohyo/dohyo/engine/kv"
)

// memKV is an in-memory KV for tests: a sorted map of rows per table with
// Resolve semantics per cell.
type memKV struct {
	mu     sync.Mutex
	tables map[string]*memTable
	meta   map[string][]byte
	closed bool
	// applies counts KV.Apply calls (atomicity checks in tests).
	applies int
}

type memTable struct {
	rows  map[string]map[string]kv.Cell
	keys  []string
	dirty bool
}

func newMemKV() *memKV {
	return &memKV{tables: map[string]*memTable{}, meta: map[string][]byte{}}
}

var errMemClosed = errors.New("memkv: closed")

func (m *memKV) table(t *kv.TableSpec) (*memTable, error) {
	if m.closed {
		return nil, errMemClosed
	}
	tb := m.tables[t.ID]
	if tb == nil {
		return nil, errors.New("memkv: no table " + t.Keyspace + "." + t.Name)
	}
	return tb, nil
}

func (m *memKV) CreateTable(ctx context.Context, t *kv.TableSpec) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tables[t.ID] == nil {
		m.tables[t.ID] = &memTable{rows: map[string]map[string]kv.Cell{}}
	}
	return nil
}

func (m *memKV) DropTable(ctx context.Context, t *kv.TableSpec) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tables, t.ID)
	return nil
}

func (m *memKV) TruncateTable(ctx context.Context, t *kv.TableSpec) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if tb := m.tables[t.ID]; tb != nil {
		tb.rows, tb.keys, tb.dirty = map[string]map[string]kv.Cell{}, nil, false
	}
	return nil
}

func (m *memKV) Apply(ctx context.Context, muts []kv.Mutation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.applies++
	for _, mu := range muts {
		tb, err := m.table(mu.Table)
		if err != nil {
			return err
		}
		row := tb.rows[string(mu.Row)]
		if row == nil {
			row = map[string]kv.Cell{}
			tb.rows[string(mu.Row)] = row
			tb.dirty = true
		}
		for _, c := range mu.Cells {
			c = kv.Cell{Qualifier: clone(c.Qualifier), Timestamp: c.Timestamp, Value: clone(c.Value)}
			if old, ok := row[string(c.Qualifier)]; ok {
				c = kv.Resolve(old, c)
			}
			row[string(c.Qualifier)] = c
		}
	}
	return nil
}

func clone(b []byte) []byte { return append([]byte{}, b...) }

func (tb *memTable) rowOf(key string) kv.Row {
	cells := tb.rows[key]
	out := kv.Row{Key: []byte(key)}
	for _, c := range cells {
		out.Cells = append(out.Cells, kv.Cell{Qualifier: clone(c.Qualifier), Timestamp: c.Timestamp, Value: clone(c.Value)})
	}
	sort.Slice(out.Cells, func(i, j int) bool { return bytes.Compare(out.Cells[i].Qualifier, out.Cells[j].Qualifier) < 0 })
	return out
}

func (m *memKV) Get(ctx context.Context, t *kv.TableSpec, keys [][]byte) ([]kv.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tb, err := m.table(t)
	if err != nil {
		return nil, err
	}
	out := make([]kv.Row, len(keys))
	for i, k := range keys {
		out[i] = tb.rowOf(string(k))
	}
	return out, nil
}

func (m *memKV) Scan(ctx context.Context, t *kv.TableSpec, r kv.ScanRange) (kv.RowIterator, error) {
	if err := ctx.Err(); err != nil {
		return &memIter{err: err}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tb, err := m.table(t)
	if err != nil {
		return nil, err
	}
	if tb.dirty {
		tb.keys = tb.keys[:0]
		for k := range tb.rows {
			tb.keys = append(tb.keys, k)
		}
		sort.Strings(tb.keys)
		tb.dirty = false
	}
	var rows []kv.Row
	for _, k := range tb.keys {
		if r.Start != nil && k < string(r.Start) {
			continue
		}
		if r.Stop != nil && k >= string(r.Stop) {
			break
		}
		if len(tb.rows[k]) == 0 {
			continue
		}
		rows = append(rows, tb.rowOf(k))
	}
	if r.Reverse {
		for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
			rows[i], rows[j] = rows[j], rows[i]
		}
	}
	return &memIter{rows: rows}, nil
}

func (m *memKV) GetMeta(ctx context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.meta[key]; ok {
		return clone(v), nil
	}
	return nil, nil
}

func (m *memKV) PutMeta(ctx context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.meta[key] = clone(value)
	return nil
}

// Close marks the store closed; reopen() gives a new handle on the data.
func (m *memKV) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// reopen returns a new open handle sharing the stored data.
func (m *memKV) reopen() *memKV {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &memKV{tables: m.tables, meta: m.meta}
}

type memIter struct {
	rows []kv.Row
	i    int
	err  error
}

func (it *memIter) Next(ctx context.Context) (kv.Row, bool) {
	if it.err == nil {
		it.err = ctx.Err()
	}
	if it.err != nil || it.i >= len(it.rows) {
		return kv.Row{}, false
	}
	it.i++
	return it.rows[it.i-1], true
}

func (it *memIter) Err() error   { return it.err }
func (it *memIter) Close() error { return nil }
