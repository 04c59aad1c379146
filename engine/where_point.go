package engine

import (
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// onePartitionKey is partitionKeys for a one-column partition key
// restricted by equality (every point read and write of such a table): the
// key list and its only key in one allocation.
func (x *execCtx) onePartitionKey(ti *tableInfo, r *restriction) ([][][]byte, error) {
	v, err := x.restrictionValue(ti.cols[r.cols[0]], r.value)
	if err != nil {
		return nil, err
	}
	if !x.first.usedPK {
		x.first.usedPK = true
		f := &x.first
		f.pkKey[0] = v
		f.pkList[0] = f.pkKey[:]
		return f.pkList[:], nil
	}
	a := &struct {
		keys [1][][]byte
		key  [1][]byte
	}{}
	a.key[0] = v
	a.keys[0] = a.key[:]
	return a.keys[:], nil
}

// restrictionValue evaluates one value of an EQ or IN restriction on col;
// nulls and unset values are Cassandra's errors.
func (x *execCtx) restrictionValue(col *schema.Column, term cql.Term) ([]byte, error) {
	v, unset, err := x.eval(col.Type, term, col.Name)
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, invalidf("Invalid unset value for column %s", col.Name)
	}
	if v == nil {
		return nil, invalidf("Invalid null value in condition for column %s", col.Name)
	}
	return v, nil
}
