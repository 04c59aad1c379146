package mirror

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/schema"
)

// BackfillOptions configures Backfill.
type BackfillOptions struct {
	Keyspace string
	Table    string // "": every table of the keyspace
	// Workers writing to the target concurrently (default 8).
	Workers int
	// Now is the write time given to multi-cell collections and UDTs,
	// whose cells' write times are not read (default: time of the call).
	Now func() time.Time
	// Done names tables an earlier run copied completely: they are not
	// copied again (a resumed backfill).
	Done map[string]bool
	// Progress, when set, is called after every page a table's scan
	// read (rows so far) and once when the table is complete (done).
	Progress func(table string, rows int64, done bool)
}

// BackfillTable is what Backfill did to one table.
type BackfillTable struct {
	Table   string `json:"table"`
	Rows    int64  `json:"rows"`
	Writes  int64  `json:"writes"` // statements sent to the target
	Failed  int64  `json:"failed"`
	Skipped string `json:"skipped,omitempty"` // why the table was not copied
}

// BackfillStats is what Backfill did.
type BackfillStats struct {
	Keyspace string           `json:"keyspace"`
	Tables   []BackfillTable  `json:"tables"`
	Rows     int64            `json:"rows"`
	Writes   int64            `json:"writes"`
	Failed   int64            `json:"failed"`
	Errors   map[string]int64 `json:"errors,omitempty"` // by error code
	Example  string           `json:"first_error,omitempty"`
	Notes    []string         `json:"notes,omitempty"`
}

// Counter tables cannot be copied with their write times (a counter
// update takes no timestamp; adding the source's value would double
// count anything the mirror already has).
const counterNote = "counter tables are not backfilled: counter updates take no timestamp, so a copy could not converge with the live mirrored increments"

// Backfill copies the rows of a keyspace (or one table) from source to
// target with each cell's write time and remaining TTL: every group of a
// row's cells that share a write time and TTL is one INSERT (static cells
// an UPDATE of the partition) with that timestamp, so running it while the
// keyspace is mirrored converges (the later write wins on either side).
// The target must already hold the schema. Counter tables are skipped
// (counterNote); non-frozen collections and UDTs are written whole with
// the backfill's time; a row with no live cell is written as its primary
// key at timestamp 1 (any delete of it wins). Tombstones are not copied.
func Backfill(ctx context.Context, source, target bindings.Backend, o BackfillOptions) (BackfillStats, error) {
	st := BackfillStats{Keyspace: o.Keyspace, Errors: map[string]int64{}}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	tables, err := tablesOf(ctx, source, o.Keyspace, o.Table)
	if err != nil {
		return st, err
	}
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		st.Errors[bindings.AsError(err).Code.String()]++
		if st.Example == "" {
			st.Example = err.Error()
		}
	}
	for _, t := range tables {
		ts := BackfillTable{Table: t.Name}
		if t.Counter {
			ts.Skipped = "counter table"
			st.Tables = append(st.Tables, ts)
			st.Notes = appendOnce(st.Notes, counterNote)
			continue
		}
		if o.Done[t.Name] {
			ts.Skipped = "copied by an earlier run"
			st.Tables = append(st.Tables, ts)
			continue
		}
		s := newTableScan(t)
		var writes, failed atomic.Int64
		reqs := make(chan *bindings.Request, o.Workers*4)
		var wg sync.WaitGroup
		for i := 0; i < o.Workers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range reqs {
					writes.Add(1)
					if _, err := target.Execute(ctx, r); err != nil {
						failed.Add(1)
						fail(fmt.Errorf("%s: %w", r.Query, err))
					}
				}
			}()
		}
		lastPart := ""
		err := s.scan(ctx, source, func(r *scanRow) error {
			ts.Rows++
			if o.Progress != nil && ts.Rows%scanPageSize == 0 {
				o.Progress(t.Name, ts.Rows, false)
			}
			part := r.id(s.partLen)
			statics := part != lastPart
			lastPart = part
			for _, req := range s.writes(r, statics, o.Now().UnixMicro()) {
				select {
				case reqs <- req:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
		close(reqs)
		wg.Wait()
		ts.Writes, ts.Failed = writes.Load(), failed.Load()
		st.Tables = append(st.Tables, ts)
		st.Rows += ts.Rows
		st.Writes += ts.Writes
		st.Failed += ts.Failed
		if err != nil {
			return st, err
		}
		if o.Progress != nil && ts.Failed == 0 {
			o.Progress(t.Name, ts.Rows, true) // every write of the table applied
		}
	}
	return st, nil
}

// group is a set of a row's cells sharing a write time and TTL.
type group struct {
	wt   int64
	ttl  int32
	cols []int // indexes into tableScan.cells
}

// writes are the statements that recreate row r on a target: its regular
// cells grouped by write time and TTL, one INSERT each, and when statics
// is set (first row of its partition) its static cells likewise, one
// UPDATE each. now is the write time of untimed (multi-cell) cells.
func (s *tableScan) writes(r *scanRow, statics bool, now int64) []*bindings.Request {
	var static, regular []*group
	add := func(gs []*group, j int, wt int64, ttl int32) []*group {
		for _, g := range gs {
			if g.wt == wt && g.ttl == ttl {
				g.cols = append(g.cols, j)
				return gs
			}
		}
		return append(gs, &group{wt: wt, ttl: ttl, cols: []int{j}})
	}
	for j, c := range r.cells {
		if c.val == nil {
			continue
		}
		wt, ttl := now, int32(0)
		if s.timed[j] {
			if !c.hasWT {
				continue
			}
			wt, ttl = c.wt, c.ttl
		}
		if s.cells[j].Kind == schema.Static {
			if statics {
				static = add(static, j, wt, ttl)
			}
			continue
		}
		regular = add(regular, j, wt, ttl)
	}
	sort.Slice(regular, func(a, b int) bool { return regular[a].wt < regular[b].wt })
	var out []*bindings.Request
	table := quoteIdent(s.ks) + "." + quoteIdent(s.table)
	clusteringNull := len(s.key) > s.partLen && r.key[s.partLen] == nil
	if !clusteringNull {
		if len(regular) == 0 {
			regular = []*group{{wt: 1}} // a row with only its primary key
		}
		for _, g := range regular {
			var cols, marks []string
			var vals []bindings.Value
			for i, k := range s.key {
				cols, marks = append(cols, quoteIdent(k.Name)), append(marks, "?")
				vals = append(vals, bindings.Value{Bytes: r.key[i]})
			}
			for _, j := range g.cols {
				cols, marks = append(cols, quoteIdent(s.cells[j].Name)), append(marks, "?")
				vals = append(vals, bindings.Value{Bytes: r.cells[j].val})
			}
			q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
			out = append(out, s.request(q, vals, g))
		}
	}
	for _, g := range static {
		var set, where []string
		var vals []bindings.Value
		for _, j := range g.cols {
			set = append(set, quoteIdent(s.cells[j].Name)+" = ?")
			vals = append(vals, bindings.Value{Bytes: r.cells[j].val})
		}
		for i, k := range s.key[:s.partLen] {
			where = append(where, quoteIdent(k.Name)+" = ?")
			vals = append(vals, bindings.Value{Bytes: r.key[i]})
		}
		q := "UPDATE " + table + " SET " + strings.Join(set, ", ") + " WHERE " + strings.Join(where, " AND ")
		out = append(out, s.request(q, vals, g))
	}
	return out
}

// request is one backfill write with its group's timestamp and TTL.
func (s *tableScan) request(q string, vals []bindings.Value, g *group) *bindings.Request {
	if g.ttl > 0 {
		if strings.HasPrefix(q, "UPDATE ") {
			table := quoteIdent(s.ks) + "." + quoteIdent(s.table)
			q = "UPDATE " + table + " USING TTL ?" + strings.TrimPrefix(q, "UPDATE "+table)
			vals = append([]bindings.Value{{Bytes: binary.BigEndian.AppendUint32(nil, uint32(g.ttl))}}, vals...)
		} else {
			q += " USING TTL ?"
			vals = append(vals, bindings.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(g.ttl))})
		}
	}
	return &bindings.Request{Keyspace: s.ks, Query: q, Values: vals, Consistency: bindings.One,
		Timestamp: g.wt, HasTimestamp: true}
}

func appendOnce(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}
