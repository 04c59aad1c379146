package cassandra

import (
	"fmt"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Conversions between native-protocol messages and bindings types.

// nativeError converts an ERROR message, keeping the code-specific fields.
func nativeError(e message.Error) *bindings.Error {
	be := &bindings.Error{Code: bindings.ErrorCode(e.GetErrorCode()), Message: e.GetErrorMessage()}
	switch m := e.(type) {
	case *message.AlreadyExists:
		be.Keyspace, be.Table = m.Keyspace, m.Table
	case *message.Unprepared:
		be.UnpreparedID = m.Id
	case *message.Unavailable:
		be.Consistency, be.BlockFor, be.Received = bindings.Consistency(m.Consistency), m.Required, m.Alive
	case *message.ReadTimeout:
		be.Consistency, be.Received, be.BlockFor, be.DataPresent = bindings.Consistency(m.Consistency), m.Received, m.BlockFor, m.DataPresent
	case *message.WriteTimeout:
		be.Consistency, be.Received, be.BlockFor, be.WriteType = bindings.Consistency(m.Consistency), m.Received, m.BlockFor, string(m.WriteType)
	case *message.ReadFailure:
		be.Consistency, be.Received, be.BlockFor, be.DataPresent = bindings.Consistency(m.Consistency), m.Received, m.BlockFor, m.DataPresent
	case *message.WriteFailure:
		be.Consistency, be.Received, be.BlockFor, be.WriteType = bindings.Consistency(m.Consistency), m.Received, m.BlockFor, string(m.WriteType)
	case *message.FunctionFailure:
		be.Keyspace = m.Keyspace
	}
	return be
}

func serialLevel(c bindings.Consistency) *primitive.ConsistencyLevel {
	if c == 0 {
		return nil
	}
	l := primitive.ConsistencyLevel(c)
	return &l
}

func nativeValue(v bindings.Value) *primitive.Value {
	if v.Unset {
		return primitive.NewUnsetValue()
	}
	if v.Bytes == nil {
		return primitive.NewNullValue()
	}
	return primitive.NewValue(v.Bytes)
}

// queryOptions builds QUERY options from a request whose consistency levels
// are already resolved.
func queryOptions(req *bindings.Request, cl, serial bindings.Consistency) *message.QueryOptions {
	opts := &message.QueryOptions{
		Consistency:       primitive.ConsistencyLevel(cl),
		SerialConsistency: serialLevel(serial),
		PagingState:       req.PagingState,
	}
	if req.PageSize > 0 {
		opts.PageSize = req.PageSize
	}
	if req.HasTimestamp {
		ts := req.Timestamp
		opts.DefaultTimestamp = &ts
	}
	if req.Names != nil {
		opts.NamedValues = make(map[string]*primitive.Value, len(req.Names))
		for i, n := range req.Names {
			if i < len(req.Values) {
				opts.NamedValues[n] = nativeValue(req.Values[i])
			}
		}
	} else {
		for _, v := range req.Values {
			opts.PositionalValues = append(opts.PositionalValues, nativeValue(v))
		}
	}
	return opts
}

// nativeResult converts a RESULT message, with its warnings.
func nativeResult(m message.Message) (*bindings.Result, error) {
	w, ok := m.(*warnedResult)
	if !ok {
		return nativeResultMessage(m)
	}
	res, err := nativeResultMessage(w.Message)
	if err != nil {
		return nil, err
	}
	res.Warnings = w.warnings
	return res, nil
}

func nativeResultMessage(m message.Message) (*bindings.Result, error) {
	switch r := m.(type) {
	case *message.VoidResult:
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	case *message.SetKeyspaceResult:
		return &bindings.Result{Kind: bindings.ResultSetKeyspace, Keyspace: r.Keyspace}, nil
	case *message.SchemaChangeResult:
		return &bindings.Result{Kind: bindings.ResultSchemaChange, Change: &bindings.SchemaChange{
			Type: bindings.ChangeType(r.ChangeType), Target: bindings.ChangeTarget(r.Target),
			Keyspace: r.Keyspace, Object: r.Object,
		}}, nil
	case *message.RowsResult:
		out := &bindings.Result{Kind: bindings.ResultRows}
		if r.Metadata != nil {
			out.PagingState = r.Metadata.PagingState
			var err error
			if out.Columns, err = nativeSpecs(r.Metadata.Columns); err != nil {
				return nil, err
			}
		}
		out.Rows = make([][][]byte, len(r.Data))
		for i, row := range r.Data {
			out.Rows[i] = [][]byte(row)
		}
		return out, nil
	}
	return nil, fmt.Errorf("cassandra: unexpected response %T", m)
}

// nativePrepared converts a PREPARED result.
func nativePrepared(pr *message.PreparedResult, keyspace string) (*bindings.Prepared, error) {
	out := &bindings.Prepared{Keyspace: keyspace}
	var err error
	if vm := pr.VariablesMetadata; vm != nil {
		out.PKIndexes = append(out.PKIndexes, vm.PkIndices...)
		if out.Bind, err = nativeSpecs(vm.Columns); err != nil {
			return nil, err
		}
	}
	if rm := pr.ResultMetadata; rm != nil && len(rm.Columns) > 0 {
		if out.Result, err = nativeSpecs(rm.Columns); err != nil {
			return nil, err
		}
	}
	// The statement's table: from its bind variables, else its result columns.
	for _, specs := range [][]bindings.ColumnSpec{out.Bind, out.Result} {
		if len(specs) > 0 && specs[0].Table != "" {
			out.Keyspace, out.Table = specs[0].Keyspace, specs[0].Table
			break
		}
	}
	return out, nil
}

func nativeSpecs(cols []*message.ColumnMetadata) ([]bindings.ColumnSpec, error) {
	out := make([]bindings.ColumnSpec, len(cols))
	for i, c := range cols {
		t, err := nativeType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("cassandra: column %s: %w", c.Name, err)
		}
		out[i] = bindings.ColumnSpec{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name, Type: t}
	}
	return out, nil
}

var nativeScalars = map[primitive.DataTypeCode]cql.Kind{
	primitive.DataTypeCodeAscii: cql.KindAscii, primitive.DataTypeCodeBigint: cql.KindBigint,
	primitive.DataTypeCodeBlob: cql.KindBlob, primitive.DataTypeCodeBoolean: cql.KindBoolean,
	primitive.DataTypeCodeCounter: cql.KindCounter, primitive.DataTypeCodeDecimal: cql.KindDecimal,
	primitive.DataTypeCodeDouble: cql.KindDouble, primitive.DataTypeCodeFloat: cql.KindFloat,
	primitive.DataTypeCodeInt: cql.KindInt, primitive.DataTypeCodeTimestamp: cql.KindTimestamp,
	primitive.DataTypeCodeUuid: cql.KindUUID, primitive.DataTypeCodeVarchar: cql.KindText,
	primitive.DataTypeCodeText: cql.KindText, primitive.DataTypeCodeVarint: cql.KindVarint,
	primitive.DataTypeCodeTimeuuid: cql.KindTimeuuid, primitive.DataTypeCodeInet: cql.KindInet,
	primitive.DataTypeCodeDate: cql.KindDate, primitive.DataTypeCodeTime: cql.KindTime,
	primitive.DataTypeCodeSmallint: cql.KindSmallint, primitive.DataTypeCodeTinyint: cql.KindTinyint,
	primitive.DataTypeCodeDuration: cql.KindDuration,
}

// nativeType converts a protocol data type. The protocol does not carry
// frozenness (serialized values are the same either way); UDTs are marked
// frozen as they must be in every position a result can show.
func nativeType(dt datatype.DataType) (*cql.Type, error) {
	switch t := dt.(type) {
	case *datatype.List:
		e, err := nativeType(t.ElementType)
		if err != nil {
			return nil, err
		}
		return cql.ListOf(e), nil
	case *datatype.Set:
		e, err := nativeType(t.ElementType)
		if err != nil {
			return nil, err
		}
		return cql.SetOf(e), nil
	case *datatype.Map:
		k, err := nativeType(t.KeyType)
		if err != nil {
			return nil, err
		}
		v, err := nativeType(t.ValueType)
		if err != nil {
			return nil, err
		}
		return cql.MapOf(k, v), nil
	case *datatype.Tuple:
		elems := make([]*cql.Type, len(t.FieldTypes))
		for i, f := range t.FieldTypes {
			e, err := nativeType(f)
			if err != nil {
				return nil, err
			}
			elems[i] = e
		}
		return cql.TupleOf(elems...), nil
	case *datatype.UserDefined:
		u := &cql.Type{Kind: cql.KindUDT, Keyspace: t.Keyspace, Name: t.Name, Fields: t.FieldNames, Frozen: true}
		for _, f := range t.FieldTypes {
			e, err := nativeType(f)
			if err != nil {
				return nil, err
			}
			u.Elems = append(u.Elems, e)
		}
		return u, nil
	case *datatype.Custom:
		return customType(t.ClassName), nil
	}
	if k, ok := nativeScalars[dt.Code()]; ok {
		return cql.Scalar(k), nil
	}
	return nil, fmt.Errorf("unsupported protocol type %v", dt)
}

// durationClass is how protocol v4 names the duration type.
const durationClass = "org.apache.cassandra.db.marshal.DurationType"

// customType maps a custom (Java class) type. Duration and vectors have a
// CQL type; other custom types (DSE types) are exposed as blobs, whose bytes
// are passed through unchanged.
func customType(class string) *cql.Type {
	if class == durationClass {
		return cql.Scalar(cql.KindDuration)
	}
	if t, ok := cql.ParseVectorClass(class); ok {
		return t
	}
	if t, ok := cql.ParseClass(class); ok && t.Custom != "" {
		return t // Cassandra's other classes (CompositeType, ...): bytes, named
	}
	return cql.Scalar(cql.KindBlob)
}
