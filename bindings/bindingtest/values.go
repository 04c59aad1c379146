package bindingtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// This file is the only place that turns expectation text into CQL values:
// each cell is parsed as the VALUES term of an INSERT with cql.Parse and
// encoded against the result column's type with cql.EncodeTerm, so that
// comparisons are on serialized bytes (sets and maps compare canonically).

// parseTerm parses one literal as a cql.Term.
func parseTerm(text string) (cql.Term, error) {
	p, err := cql.Parse("INSERT INTO t (c) VALUES (" + text + ")")
	if err != nil {
		return nil, fmt.Errorf("bad literal %s: %v", text, err)
	}
	ins, ok := p.Stmt.(*cql.Insert)
	if !ok || len(ins.Values) != 1 {
		return nil, fmt.Errorf("bad literal %s: not a single term", text)
	}
	return ins.Values[0], nil
}

// compileCells parses every literal of a scenario (expected cells and bound
// values) so that format errors surface at Load time.
func compileCells(sc *Scenario) error {
	compile := func(line int, c *Cell) error {
		if c == nil || c.Any || c.Null {
			return nil
		}
		t, err := parseTerm(c.Text)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", sc.File, line, err)
		}
		c.term = t
		return nil
	}
	for _, st := range sc.Steps {
		for _, row := range st.Expect.Rows {
			for _, c := range row {
				if err := compile(st.Line, c); err != nil {
					return err
				}
			}
		}
		binds := []*BindValues{st.Bind}
		if st.Batch != nil {
			for _, ch := range st.Batch.Children {
				binds = append(binds, ch.Bind)
			}
		}
		for _, b := range binds {
			if b == nil {
				continue
			}
			for _, c := range b.Values {
				if err := compile(st.Line, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// encodeCell serializes an expected literal for a column of type t.
func encodeCell(t *cql.Type, c *Cell, receiver string) ([]byte, error) {
	if c.Null {
		return nil, nil
	}
	term := c.term
	if term == nil {
		var err error
		if term, err = parseTerm(c.Text); err != nil {
			return nil, err
		}
	}
	b, err := cql.EncodeTerm(t, term, receiver, nil)
	if err != nil {
		return nil, fmt.Errorf("encode %s as %s: %v", c.Text, t, err)
	}
	return b, nil
}

// sameValue compares two serialized values of type t. Bytes must match
// exactly, except that any two NaNs are equal (the payload of a NaN is not
// something CQL lets a client observe through literals).
func sameValue(t *cql.Type, got, want []byte) bool {
	if (got == nil) != (want == nil) {
		return false
	}
	if bytes.Equal(got, want) {
		return true
	}
	if t == nil {
		return false
	}
	switch {
	case t.Kind == cql.KindFloat && len(got) == 4 && len(want) == 4:
		return math.IsNaN(float64(math.Float32frombits(binary.BigEndian.Uint32(got)))) &&
			math.IsNaN(float64(math.Float32frombits(binary.BigEndian.Uint32(want))))
	case t.Kind == cql.KindDouble && len(got) == 8 && len(want) == 8:
		return math.IsNaN(math.Float64frombits(binary.BigEndian.Uint64(got))) &&
			math.IsNaN(math.Float64frombits(binary.BigEndian.Uint64(want)))
	}
	return false
}

// formatValue renders a serialized value as a CQL literal for messages.
func formatValue(t *cql.Type, b []byte) string {
	if b == nil {
		return "null"
	}
	if t == nil {
		return fmt.Sprintf("0x%x", b)
	}
	return cql.FormatValue(t, b)
}

// formatRow joins formatted cells with " | ".
func formatRow(types []*cql.Type, row [][]byte) string {
	parts := make([]string, len(row))
	for i, v := range row {
		var t *cql.Type
		if i < len(types) {
			t = types[i]
		}
		parts[i] = formatValue(t, v)
	}
	return strings.Join(parts, " | ")
}
