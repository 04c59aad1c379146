package engine

import (
	"encoding/binary"
	"slices"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// User-defined types. A frozen UDT is one cell holding the serialized value
// (like a frozen collection). A non-frozen UDT is multi-cell, as in
// Cassandra: one element cell per non-null field, keyed by the field's
// position as a big-endian 16-bit integer (Cassandra's cell path), so a
// field can be set or deleted alone and fields added by ALTER TYPE read as
// null in older rows.

// udtFieldKey is the element key of field i of a non-frozen UDT.
func udtFieldKey(i int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(i)) }

// udtCells splits a serialized UDT value into one cell per non-null field.
func udtCells(col *schema.Column, v []byte, wp writeParams) ([]kv.Cell, error) {
	fields, err := splitTuple(v)
	if err != nil || len(fields) > len(col.Type.Elems) {
		return nil, invalidf("Invalid user type value for column %s", col.Name)
	}
	cells := make([]kv.Cell, 0, len(fields))
	for i, f := range fields {
		if f != nil {
			cells = append(cells, liveCell(elemQual(col.Name, udtFieldKey(i)), wp, f))
		}
	}
	return cells, nil
}

// buildUDTValue serializes the live fields of a non-frozen UDT: every field
// of the type, null where no cell is live; nil when no field is.
func buildUDTValue(t *cql.Type, elems []elem) []byte {
	items := make([][]byte, len(t.Elems))
	n := 0
	for _, e := range elems {
		if len(e.key) != 2 {
			continue
		}
		if i := int(binary.BigEndian.Uint16(e.key)); i < len(items) {
			items[i] = e.val
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return buildTupleValue(items)
}

// buildTupleValue serializes tuple/UDT components (nil is null).
func buildTupleValue(items [][]byte) []byte {
	size := 0
	for _, it := range items {
		size += 4 + len(it)
	}
	b := make([]byte, 0, size)
	for _, it := range items {
		if it == nil {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(it)))
		b = append(b, it...)
	}
	return b
}

// udtField extracts field i of a serialized UDT value; nil when the value or
// the field is null or absent (a value written before ALTER TYPE ADD).
func udtField(v []byte, i int) []byte {
	if v == nil {
		return nil
	}
	fields, err := splitTuple(v)
	if err != nil || i >= len(fields) {
		return nil
	}
	return fields[i]
}

// fieldOf resolves a UDT field of column c for a selection, an assignment
// or a deletion: its index, or Cassandra's error.
func fieldOf(col *schema.Column, field string) (int, error) {
	if col.Type.Kind != cql.KindUDT {
		return 0, invalidf("Invalid field selection: %s of type %s is not a user type", col.Name, schema.TypeString(col.Type))
	}
	i := slices.Index(col.Type.Fields, field)
	if i < 0 {
		return 0, invalidf("%s of type %s has no field %s", col.Name, cql.QuoteIdent(col.Type.Name), field)
	}
	return i, nil
}

// planFieldAssign plans SET c.field = v.
func (b *planner) planFieldAssign(ti *tableInfo, c int, a cql.Assignment, op setOp) (setOp, error) {
	col := ti.cols[c]
	t := col.Type
	if t.Kind != cql.KindUDT {
		return setOp{}, invalidf("Invalid operation (%s) for non-UDT column %s", assignText(a), col.Name)
	}
	if !t.MultiCell() {
		return setOp{}, invalidf("Invalid operation (%s) for frozen UDT column %s", assignText(a), col.Name)
	}
	i := slices.Index(t.Fields, a.Field)
	if i < 0 {
		return setOp{}, invalidf("UDT column %s does not have a field named %s", col.Name, a.Field)
	}
	op.field = i + 1
	op.vt = t.Elems[i]
	b.walkTerm(a.Value, op.vt, col.Name+"."+a.Field, ti)
	return op, nil
}

// assignField adds the cell (or tombstone, for null) of SET c.field = v.
func (p *modPlan) assignField(x *execCtx, op setOp, key []byte, wp writeParams, mb *mutBuilder) error {
	ti := p.ti
	col := ti.cols[op.col]
	i := op.field - 1
	v, unset, err := x.eval(op.vt, op.value, col.Name+"."+col.Type.Fields[i])
	if err != nil || unset {
		return err
	}
	q := elemQual(col.Name, udtFieldKey(i))
	mb.add(ti, key, mb.liveOrTomb(q, wp, v))
	return nil
}

// planFieldDelete resolves DELETE c.field: the field index + 1.
func planFieldDelete(col *schema.Column, field string) (int, error) {
	if col.Type.Kind != cql.KindUDT {
		return 0, invalidf("Invalid field deletion operation for non-UDT column %s", col.Name)
	}
	if !col.Type.MultiCell() {
		return 0, invalidf("Frozen UDT column %s does not support field deletion", col.Name)
	}
	i := slices.Index(col.Type.Fields, field)
	if i < 0 {
		return 0, invalidf("UDT column %s does not have a field named %s", col.Name, field)
	}
	return i + 1, nil
}

// compileFieldSelector compiles SELECT c.field.
func (b *planner) compileFieldSelector(ti *tableInfo, sl *cql.Selector) (selector, error) {
	c, err := ti.column(sl.Column)
	if err != nil {
		return selector{}, err
	}
	col := ti.cols[c]
	i, err := fieldOf(col, sl.Field)
	if err != nil {
		return selector{}, err
	}
	name := col.Name + "." + sl.Field
	return selector{kind: selColumn, col: c, field: i + 1, spec: ti.specNamed(name, col.Type.Elems[i])}, nil
}
