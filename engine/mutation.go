package engine

import (
	"bytes"
	"encoding/binary"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
)

// mutBuilder gathers the cells of a statement or batch, one Mutation per
// (table, row), in first-touch order, so the whole lot goes to the store in
// one KV.Apply.
type mutBuilder struct {
	muts     []kv.Mutation
	idx      map[mutKey]int // built once there are many rows
	counters []counterDelta
	hint     int            // expected cells per row
	first    [1]kv.Mutation // backs muts for the usual single-row statement
	cells    [4]kv.Cell     // backs the first mutation's cells when they fit
	enc      []byte         // live's arena: encoded values handed out, never rewritten
	encBuf   [256]byte      // backs enc for the usual small row
	// sizing: a batch being checked (batch_check.go) wants the sizes of
	// its range tombstones, noted in ranges.
	sizing bool
	ranges []rangeNote
}

type mutKey struct {
	table string
	row   string
}

func (m *mutBuilder) add(ti *tableInfo, row []byte, cells ...kv.Cell) {
	i := m.find(ti, row)
	if i < 0 {
		i = len(m.muts)
		var cs []kv.Cell
		if n := max(m.hint, len(cells)); m.muts == nil && n <= len(m.cells) {
			m.muts, cs = m.first[:0], m.cells[:0]
		} else {
			cs = make([]kv.Cell, 0, n)
		}
		m.muts = append(m.muts, kv.Mutation{Table: ti.spec, Row: row, Cells: cs})
		if m.idx != nil {
			m.idx[mutKey{ti.t.ID, string(row)}] = i
		}
	}
	m.muts[i].Cells = append(m.muts[i].Cells, cells...)
}

// find returns the index of the mutation of a row, or -1. Statements touch
// few rows: a linear search until there are many.
func (m *mutBuilder) find(ti *tableInfo, row []byte) int {
	if m.idx == nil && len(m.muts) >= 16 {
		m.idx = make(map[mutKey]int, 2*len(m.muts))
		for i, mu := range m.muts {
			m.idx[mutKey{mu.Table.ID, string(mu.Row)}] = i
		}
	}
	if m.idx != nil {
		if i, ok := m.idx[mutKey{ti.t.ID, string(row)}]; ok {
			return i
		}
		return -1
	}
	for i := len(m.muts) - 1; i >= 0; i-- {
		if m.muts[i].Table == ti.spec && bytes.Equal(m.muts[i].Row, row) {
			return i
		}
	}
	return -1
}

// liveCell builds a live cell written with wp.
func liveCell(q []byte, wp writeParams, data []byte) kv.Cell {
	return kv.Cell{Qualifier: q, Timestamp: wp.ts, Value: liveValue(wp, data).Encode()}
}

// liveValue is the value of a live cell written with wp.
func liveValue(wp writeParams, data []byte) kv.CellValue {
	v := kv.CellValue{Data: data}
	if wp.ttl > 0 {
		v.TTL = wp.ttl
		v.Expiry = wp.now + int64(wp.ttl)
	}
	return v
}

// live is liveCell with the value encoded in the builder's arena (one
// allocation for the builder instead of one per cell); values that do not
// fit get their own.
func (m *mutBuilder) live(q []byte, wp writeParams, data []byte) kv.Cell {
	c := kv.Cell{Qualifier: q, Timestamp: wp.ts}
	v := liveValue(wp, data)
	if m.enc == nil {
		m.enc = m.encBuf[:0]
	}
	n := v.EncodedLen()
	if len(m.enc)+n > cap(m.enc) {
		c.Value = v.Encode()
		return c
	}
	start := len(m.enc)
	m.enc = v.AppendEncode(m.enc)
	c.Value = m.enc[start:len(m.enc):len(m.enc)]
	return c
}

// liveOrTomb is the cell that writes v at qualifier q: live, or a
// tombstone when v is null.
func (m *mutBuilder) liveOrTomb(q []byte, wp writeParams, v []byte) kv.Cell {
	if v == nil {
		return tombCell(q, wp.ts, wp.now)
	}
	return m.live(q, wp, v)
}

// tombCell builds a tombstone written at ts.
func tombCell(q []byte, ts int64, now int64) kv.Cell {
	return kv.Cell{Qualifier: q, Timestamp: ts, Value: kv.CellValue{Tombstone: true, Expiry: now}.Encode()}
}

// listTimes hands out list element key times: strictly increasing per
// engine, so appends made later sort later and prepends made later sort
// earlier (Cassandra uses timeuuids of the current time the same way).
func (e *Engine) listTime(n int) uint64 {
	// Reserve n consecutive µs values from the engine clock.
	first := e.nextTimestamp()
	for i := 1; i < n; i++ {
		e.nextTimestamp()
	}
	return uint64(first)
}

// collectionCells returns the element cells of a whole collection value
// (INSERT or SET c = v), written at wp.ts.
func (x *execCtx) collectionCells(ti *tableInfo, col int, v []byte, wp writeParams, prepend bool) ([]kv.Cell, error) {
	c := ti.cols[col]
	if c.Type.Kind == cql.KindUDT {
		return udtCells(c, v, wp)
	}
	per := 1
	kind := c.Type.Kind
	if kind == cql.KindMap {
		per = 2
	}
	items, err := splitCollection(v, per)
	if err != nil {
		return nil, invalidf("Invalid collection value for column %s", c.Name)
	}
	n := len(items) / per
	cells := make([]kv.Cell, 0, n)
	switch kind {
	case cql.KindList:
		t := x.e.listTime(1)
		for i, it := range items {
			if it == nil {
				return nil, invalidf("null is not supported inside collections")
			}
			cells = append(cells, liveCell(elemQual(c.Name, listKey(t, uint64(i), prepend)), wp, it))
		}
	case cql.KindSet:
		for _, it := range items {
			if it == nil {
				return nil, invalidf("null is not supported inside collections")
			}
			cells = append(cells, liveCell(elemQual(c.Name, it), wp, nil))
		}
	case cql.KindMap:
		for i := 0; i+1 < len(items); i += 2 {
			if items[i] == nil || items[i+1] == nil {
				return nil, invalidf("null is not supported inside collections")
			}
			cells = append(cells, liveCell(elemQual(c.Name, items[i]), wp, items[i+1]))
		}
	}
	return cells, nil
}

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
