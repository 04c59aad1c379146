package wire

import (
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/cql"
)

// Column specs and type [option]s (native_protocol_v5.spec §4.2.5.2).

// scalarCodes maps scalar kinds to their [option] id. text is sent as
// varchar (0x000D), as Cassandra does.
var scalarCodes = map[cql.Kind]primitive.DataTypeCode{
	cql.KindAscii:     primitive.DataTypeCodeAscii,
	cql.KindBigint:    primitive.DataTypeCodeBigint,
	cql.KindBlob:      primitive.DataTypeCodeBlob,
	cql.KindBoolean:   primitive.DataTypeCodeBoolean,
	cql.KindCounter:   primitive.DataTypeCodeCounter,
	cql.KindDecimal:   primitive.DataTypeCodeDecimal,
	cql.KindDouble:    primitive.DataTypeCodeDouble,
	cql.KindFloat:     primitive.DataTypeCodeFloat,
	cql.KindInt:       primitive.DataTypeCodeInt,
	cql.KindText:      primitive.DataTypeCodeVarchar,
	cql.KindTimestamp: primitive.DataTypeCodeTimestamp,
	cql.KindUUID:      primitive.DataTypeCodeUuid,
	cql.KindVarint:    primitive.DataTypeCodeVarint,
	cql.KindTimeuuid:  primitive.DataTypeCodeTimeuuid,
	cql.KindInet:      primitive.DataTypeCodeInet,
	cql.KindDate:      primitive.DataTypeCodeDate,
	cql.KindTime:      primitive.DataTypeCodeTime,
	cql.KindSmallint:  primitive.DataTypeCodeSmallint,
	cql.KindTinyint:   primitive.DataTypeCodeTinyint,
	cql.KindDuration:  primitive.DataTypeCodeDuration,
}

// Types newer than a protocol version travel as custom types naming their
// Cassandra marshal class (Cassandra's DataType.fromType does the same).
var (
	v4Types = map[cql.Kind]string{
		cql.KindDate:     "org.apache.cassandra.db.marshal.SimpleDateType",
		cql.KindTime:     "org.apache.cassandra.db.marshal.TimeType",
		cql.KindSmallint: "org.apache.cassandra.db.marshal.ShortType",
		cql.KindTinyint:  "org.apache.cassandra.db.marshal.ByteType",
	}
	durationClass = "org.apache.cassandra.db.marshal.DurationType"
)

// AppendType writes a type [option] as protocol version reads it:
// types newer than the version travel as custom types, and a nil type as
// blob.
func AppendType(f []byte, t *cql.Type, version byte) []byte {
	if t == nil {
		return AppendShort(f, uint16(primitive.DataTypeCodeBlob))
	}
	if t.Custom != "" {
		return AppendString(AppendShort(f, uint16(primitive.DataTypeCodeCustom)), t.Custom)
	}
	switch t.Kind {
	case cql.KindList, cql.KindSet:
		code := primitive.DataTypeCodeList
		if t.Kind == cql.KindSet {
			code = primitive.DataTypeCodeSet
		}
		f = AppendShort(f, uint16(code))
		return AppendType(f, elem(t, 0), version)
	case cql.KindMap:
		f = AppendShort(f, uint16(primitive.DataTypeCodeMap))
		f = AppendType(f, elem(t, 0), version)
		return AppendType(f, elem(t, 1), version)
	case cql.KindTuple:
		f = AppendShort(f, uint16(primitive.DataTypeCodeTuple))
		f = AppendShort(f, uint16(len(t.Elems)))
		for _, e := range t.Elems {
			f = AppendType(f, e, version)
		}
		return f
	case cql.KindVector:
		return AppendString(AppendShort(f, uint16(primitive.DataTypeCodeCustom)), cql.VectorClassName(t))
	case cql.KindUDT:
		f = AppendShort(f, uint16(primitive.DataTypeCodeUdt))
		f = AppendString(f, t.Keyspace)
		f = AppendString(f, t.Name)
		f = AppendShort(f, uint16(len(t.Fields)))
		for i, name := range t.Fields {
			f = AppendString(f, name)
			f = AppendType(f, elem(t, i), version)
		}
		return f
	}
	if class, ok := v4Types[t.Kind]; ok && version < 4 {
		return AppendString(AppendShort(f, uint16(primitive.DataTypeCodeCustom)), class)
	}
	if t.Kind == cql.KindDuration && version < 5 {
		return AppendString(AppendShort(f, uint16(primitive.DataTypeCodeCustom)), durationClass)
	}
	code, ok := scalarCodes[t.Kind]
	if !ok {
		code = primitive.DataTypeCodeBlob
	}
	return AppendShort(f, uint16(code))
}

func elem(t *cql.Type, i int) *cql.Type {
	if i < len(t.Elems) {
		return t.Elems[i]
	}
	return nil
}
