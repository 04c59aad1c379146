package cassandra

import (
	"fmt"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/cql"
)

var gocqlScalars = map[gocql.Type]cql.Kind{
	gocql.TypeAscii: cql.KindAscii, gocql.TypeBigInt: cql.KindBigint, gocql.TypeBlob: cql.KindBlob,
	gocql.TypeBoolean: cql.KindBoolean, gocql.TypeCounter: cql.KindCounter, gocql.TypeDecimal: cql.KindDecimal,
	gocql.TypeDouble: cql.KindDouble, gocql.TypeFloat: cql.KindFloat, gocql.TypeInt: cql.KindInt,
	gocql.TypeText: cql.KindText, gocql.TypeVarchar: cql.KindText, gocql.TypeTimestamp: cql.KindTimestamp,
	gocql.TypeUUID: cql.KindUUID, gocql.TypeVarint: cql.KindVarint, gocql.TypeTimeUUID: cql.KindTimeuuid,
	gocql.TypeInet: cql.KindInet, gocql.TypeDate: cql.KindDate, gocql.TypeTime: cql.KindTime,
	gocql.TypeSmallInt: cql.KindSmallint, gocql.TypeTinyInt: cql.KindTinyint, gocql.TypeDuration: cql.KindDuration,
}

// gocqlType converts gocql's column type description. As with the protocol
// itself, frozenness is unknown; UDTs are marked frozen (see nativeType).
func gocqlType(ti gocql.TypeInfo) (*cql.Type, error) {
	switch t := ti.(type) {
	case rawTupleInfo:
		return gocqlType(t.TupleTypeInfo)
	case gocql.CollectionType:
		elem, err := gocqlType(t.Elem)
		if err != nil {
			return nil, err
		}
		switch t.Type() {
		case gocql.TypeList:
			return cql.ListOf(elem), nil
		case gocql.TypeSet:
			return cql.SetOf(elem), nil
		case gocql.TypeMap:
			key, err := gocqlType(t.Key)
			if err != nil {
				return nil, err
			}
			return cql.MapOf(key, elem), nil
		}
	case gocql.TupleTypeInfo:
		elems := make([]*cql.Type, len(t.Elems))
		for i, e := range t.Elems {
			et, err := gocqlType(e)
			if err != nil {
				return nil, err
			}
			elems[i] = et
		}
		return cql.TupleOf(elems...), nil
	case gocql.UDTTypeInfo:
		u := &cql.Type{Kind: cql.KindUDT, Keyspace: t.KeySpace, Name: t.Name, Frozen: true}
		for _, f := range t.Elements {
			ft, err := gocqlType(f.Type)
			if err != nil {
				return nil, err
			}
			u.Fields = append(u.Fields, f.Name)
			u.Elems = append(u.Elems, ft)
		}
		return u, nil
	}
	if ti == nil {
		return nil, fmt.Errorf("missing type")
	}
	if ti.Type() == gocql.TypeCustom {
		return customType(ti.Custom()), nil
	}
	if k, ok := gocqlScalars[ti.Type()]; ok {
		return cql.Scalar(k), nil
	}
	return nil, fmt.Errorf("unsupported type %v", ti)
}

// rawTupleInfo hides a tuple column from gocql's Scan, which otherwise
// splits a tuple into one destination per element and so loses the
// difference between a null tuple and a tuple of nulls. Wrapped, the column
// is handed whole to RawCell.
type rawTupleInfo struct{ gocql.TupleTypeInfo }

// Type reports a custom type so Scan does not expand the column.
func (rawTupleInfo) Type() gocql.Type { return gocql.TypeCustom }

// RawValue is a bound value passed to Cassandra exactly as given (nil is
// null): the caller already serialized it.
type RawValue []byte

// MarshalCQL returns the bytes unchanged.
func (v RawValue) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return v, nil }

// RawCell captures one result cell's serialized bytes: nil for null, a
// non-nil (possibly empty) copy otherwise, since gocql reuses its buffer.
type RawCell []byte

// UnmarshalCQL copies data.
func (c *RawCell) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if data == nil {
		*c = nil
		return nil
	}
	*c = append(make([]byte, 0, len(data)), data...)
	return nil
}

var (
	_ gocql.Marshaler   = RawValue(nil)
	_ gocql.Unmarshaler = (*RawCell)(nil)
)
