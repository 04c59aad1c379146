package mirror

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/dohyo/dohyo/bindings"
)

// CompareOptions configures Compare.
type CompareOptions struct {
	Keyspace string
	Table    string // "": every table of the keyspace
	// Examples bounds the differences kept as examples (default 20).
	Examples int
}

// CompareTable is one table's comparison.
type CompareTable struct {
	Table      string `json:"table"`
	SourceRows int64  `json:"source_rows"`
	TargetRows int64  `json:"target_rows"`
	Equal      int64  `json:"equal"`
	Missing    int64  `json:"missing"`   // on the source, not on the target
	Extra      int64  `json:"extra"`     // on the target, not on the source
	Different  int64  `json:"different"` // on both, a value or write time differs
}

// Difference is one example of a row that differs.
type Difference struct {
	Table  string `json:"table"`
	Key    string `json:"key"`
	Kind   string `json:"kind"` // missing, extra, different
	Column string `json:"column,omitempty"`
	Source string `json:"source,omitempty"`
	Target string `json:"target,omitempty"`
}

// CompareResult is a full-scan comparison of a keyspace on two backends.
type CompareResult struct {
	Keyspace string         `json:"keyspace"`
	Equal    bool           `json:"equal"`
	Tables   []CompareTable `json:"tables"`
	Examples []Difference   `json:"examples,omitempty"`
	Notes    []string       `json:"notes,omitempty"`
}

const compareNote = "values and write times are compared; TTLs are not (they count down), nor the write times of counters, non-frozen collections and UDTs (their values are)"

// Compare scans every table of a keyspace (or one) on source and target
// and compares them row by row: the primary key, every cell's value and,
// where the scan reads one, its write time. The source's rows are held in
// memory as a map from primary key to row, so its size bounds the tables
// it suits.
func Compare(ctx context.Context, source, target bindings.Backend, o CompareOptions) (CompareResult, error) {
	res := CompareResult{Keyspace: o.Keyspace, Equal: true, Notes: []string{compareNote}}
	if o.Examples <= 0 {
		o.Examples = 20
	}
	tables, err := tablesOf(ctx, source, o.Keyspace, o.Table)
	if err != nil {
		return res, err
	}
	example := func(d Difference) {
		res.Equal = false
		if len(res.Examples) < o.Examples {
			res.Examples = append(res.Examples, d)
		}
	}
	for _, t := range tables {
		s := newTableScan(t)
		ct := CompareTable{Table: t.Name}
		src := map[string]*scanRow{}
		if err := s.scan(ctx, source, func(r *scanRow) error {
			ct.SourceRows++
			src[r.id(len(s.key))] = r
			return nil
		}); err != nil {
			return res, fmt.Errorf("source: %w", err)
		}
		if err := s.scan(ctx, target, func(r *scanRow) error {
			ct.TargetRows++
			id := r.id(len(s.key))
			sr, ok := src[id]
			if !ok {
				ct.Extra++
				example(Difference{Table: t.Name, Key: s.render(r.key), Kind: "extra"})
				return nil
			}
			delete(src, id)
			if j, what := s.differs(sr, r); j >= 0 {
				ct.Different++
				c := s.cells[j]
				show := func(x cell) string {
					if what == "write time" {
						return fmt.Sprint(x.wt)
					}
					return renderValue(c.Type, x.val)
				}
				example(Difference{Table: t.Name, Key: s.render(r.key), Kind: "different",
					Column: c.Name + " (" + what + ")", Source: show(sr.cells[j]), Target: show(r.cells[j])})
				return nil
			}
			ct.Equal++
			return nil
		}); err != nil {
			return res, fmt.Errorf("target: %w", err)
		}
		ct.Missing = int64(len(src))
		if ct.Missing > 0 {
			keys := make([]string, 0, len(src))
			for id := range src {
				keys = append(keys, id)
			}
			sort.Strings(keys) // deterministic examples
			for _, id := range keys {
				example(Difference{Table: t.Name, Key: s.render(src[id].key), Kind: "missing"})
				if len(res.Examples) >= o.Examples {
					break
				}
			}
		}
		res.Tables = append(res.Tables, ct)
	}
	return res, nil
}

// differs returns the first cell of a and b that differs (-1 if none) and
// whether its value or its write time does.
func (s *tableScan) differs(a, b *scanRow) (int, string) {
	for j := range s.cells {
		x, y := a.cells[j], b.cells[j]
		if !bytes.Equal(x.val, y.val) || (x.val == nil) != (y.val == nil) {
			return j, "value"
		}
		if s.timed[j] && (x.hasWT != y.hasWT || x.wt != y.wt) {
			return j, "write time"
		}
	}
	return -1, ""
}
