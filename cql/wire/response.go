package wire

import (
	"errors"
	"fmt"

	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// Response bodies as a relay reads them: it forwards Cassandra's bodies
// unchanged, so these decoders read only what routing, a prepared-statement
// registry, schema refresh and observers need: error codes, prepared ids,
// schema changes and the cells of rows.

// Result kinds (the [int] that opens a RESULT body).
const (
	ResultVoid         = int32(primitive.ResultTypeVoid)
	ResultRows         = int32(primitive.ResultTypeRows)
	ResultSetKeyspace  = int32(primitive.ResultTypeSetKeyspace)
	ResultPrepared     = int32(primitive.ResultTypePrepared)
	ResultSchemaChange = int32(primitive.ResultTypeSchemaChange)
)

// Rows metadata flags (native_protocol_v5.spec §4.2.5.2).
const (
	RowsGlobalTableSpec = int32(primitive.RowsFlagGlobalTablesSpec)
	RowsHasMorePages    = int32(primitive.RowsFlagHasMorePages)
	RowsNoMetadata      = int32(primitive.RowsFlagNoMetadata)
	RowsMetadataChanged = int32(primitive.RowsFlagMetadataChanged)
)

// ErrMalformedError is DecodeError's answer to an ERROR body that ends
// early.
var ErrMalformedError = errors.New("malformed ERROR body")

// ErrorBody is what DecodeError reads from an ERROR body.
type ErrorBody struct {
	Code         uint32
	Message      string
	UnpreparedID []byte // Unprepared errors only: the unknown id (a slice of the body)
}

// DecodeError reads an ERROR body (after ResponseBody): its code, its
// message and, for Unprepared, the unknown id.
func DecodeError(body []byte) (ErrorBody, error) {
	r := Reader{b: body}
	e := ErrorBody{Code: uint32(r.Int()), Message: r.Str()}
	if e.Code == uint32(primitive.ErrorCodeUnprepared) {
		e.UnpreparedID = r.ShortBytes()
	}
	if r.err != nil {
		return ErrorBody{}, ErrMalformedError
	}
	return e, nil
}

// ResponseBody returns a Reader over a response's message: it skips what
// precedes it, a tracing id, a warning list and a custom payload, as the
// header flags announce them.
func ResponseBody(h Header, body []byte) Reader {
	r := Reader{b: body}
	if h.Flags&FlagTracing != 0 {
		r.Take(16)
	}
	if h.Flags&FlagWarning != 0 {
		r.StringList()
	}
	if h.Flags&FlagCustomPayload != 0 {
		r.BytesMap()
	}
	return r
}

// DecodeRows reads a Rows result's metadata and cells (after the result
// kind): the cells are slices of the body, null cells nil; more tells
// whether the result has more pages.
func DecodeRows(r *Reader) (rows [][][]byte, more bool, err error) {
	cols, n, more, err := rowsHeader(r)
	if err != nil {
		return nil, false, err
	}
	rows = make([][][]byte, n)
	for i := range rows {
		row := make([][]byte, cols)
		for j := range row {
			row[j] = r.Bytes()
		}
		rows[i] = row
	}
	return rows, more, r.err
}

// RowsDigest reads a Rows result body (after its kind) as DecodeRows
// does, without keeping the rows: it returns their count and digest, the
// sum over rows of FNV-1a 64 over each cell's length (as a big-endian
// uint32, 0xFFFFFFFF for null) followed by its bytes — the same value as
// bindings.RowsDigest of DecodeRows' rows, without allocating.
func RowsDigest(r *Reader) (n int, digest uint64, more bool, err error) {
	cols, n, more, err := rowsHeader(r)
	if err != nil {
		return 0, 0, false, err
	}
	const offset, prime = 14695981039346656037, 1099511628211
	for range n {
		h := uint64(offset)
		for range cols {
			l := r.Int()
			if l < 0 {
				l = -1
			}
			for _, c := range [4]byte{byte(uint32(l) >> 24), byte(uint32(l) >> 16), byte(uint32(l) >> 8), byte(uint32(l))} {
				h = (h ^ uint64(c)) * prime
			}
			if l > 0 {
				for _, c := range r.Take(int(l)) {
					h = (h ^ uint64(c)) * prime
				}
			}
		}
		if r.err != nil {
			return 0, 0, false, r.err
		}
		digest += h
	}
	return n, digest, more, nil
}

// rowsHeader reads a Rows result's metadata up to its row count.
func rowsHeader(r *Reader) (cols, n int, more bool, err error) {
	flags := r.Int()
	cols = int(r.Int())
	more = flags&RowsHasMorePages != 0
	if more {
		r.Bytes()
	}
	if flags&RowsMetadataChanged != 0 {
		r.ShortBytes()
	}
	if flags&RowsNoMetadata == 0 {
		if flags&RowsGlobalTableSpec != 0 {
			r.Str()
			r.Str()
		}
		for i := 0; i < cols && r.err == nil; i++ {
			if flags&RowsGlobalTableSpec == 0 {
				r.Str()
				r.Str()
			}
			r.Str()
			skipOption(r, 0)
		}
	}
	n = int(r.Int())
	if r.err != nil || cols < 0 || n < 0 || n*cols*4 > len(r.b) {
		return 0, 0, false, fmt.Errorf("malformed rows result")
	}
	return cols, n, more, nil
}

// skipOption skips a type [option], recursing into collection, UDT and
// tuple parameters.
func skipOption(r *Reader, depth int) {
	if depth > 32 {
		r.Fail(fmt.Errorf("type nesting too deep"))
		return
	}
	switch id := r.Short(); id {
	case uint16(primitive.DataTypeCodeCustom):
		r.Str()
	case uint16(primitive.DataTypeCodeList), uint16(primitive.DataTypeCodeSet):
		skipOption(r, depth+1)
	case uint16(primitive.DataTypeCodeMap):
		skipOption(r, depth+1)
		skipOption(r, depth+1)
	case uint16(primitive.DataTypeCodeUdt):
		r.Str()
		r.Str()
		n := int(r.Short())
		for i := 0; i < n && r.err == nil; i++ {
			r.Str()
			skipOption(r, depth+1)
		}
	case uint16(primitive.DataTypeCodeTuple):
		n := int(r.Short())
		for i := 0; i < n && r.err == nil; i++ {
			skipOption(r, depth+1)
		}
	}
}

// PreparedResult returns the id of a RESULT Prepared response and the rest
// of its body (the statement's metadata, compared on re-prepare), as
// copies; nil when the response is not one.
func PreparedResult(h Header, body []byte) (id, shape []byte) {
	if h.Op != OpResult {
		return nil, nil
	}
	r := ResponseBody(h, body)
	if r.Int() != ResultPrepared {
		return nil, nil
	}
	id = r.ShortBytes()
	if r.err != nil {
		return nil, nil
	}
	return append([]byte(nil), id...), append([]byte{}, r.b...)
}

// SchemaChange is a schema change as a RESULT or an EVENT reports it.
type SchemaChange struct {
	Type, Target, Keyspace string
	Object                 string // "" for a keyspace
}

// DecodeSchemaChange reads the change a RESULT SchemaChange response (or,
// with event set, a SCHEMA_CHANGE event) reports; ok is false when the
// response is not one or is malformed.
func DecodeSchemaChange(h Header, body []byte, event bool) (ch SchemaChange, ok bool) {
	r := ResponseBody(h, body)
	if event {
		if r.Str() != string(primitive.EventTypeSchemaChange) {
			return SchemaChange{}, false
		}
	} else if h.Op != OpResult || r.Int() != ResultSchemaChange {
		return SchemaChange{}, false
	}
	ch = SchemaChange{Type: r.Str(), Target: r.Str(), Keyspace: r.Str()}
	if ch.Target != string(primitive.SchemaChangeTargetKeyspace) {
		// Tables, types, functions and aggregates name their object;
		// function and aggregate argument lists are not read.
		ch.Object = r.Str()
	}
	if r.err != nil {
		return SchemaChange{}, false
	}
	return ch, true
}
