package cqlserver

import (
	"fmt"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

// Decoding of QUERY, PREPARE, EXECUTE and BATCH bodies
// (native_protocol_v5.spec §4.1.4-4.1.7). Decoding happens on the reader
// goroutine so that a malformed body closes the connection before anything
// runs; values stay slices of the frame body (which is never reused).

// queryParams are <query_parameters>.
type queryParams struct {
	consistency  bindings.Consistency
	values       []bindings.Value
	names        []string
	skipMetadata bool
	pageSize     int32
	pagingState  []byte
	serial       bindings.Consistency
	timestamp    int64
	hasTimestamp bool
	keyspace     string // v5: per-request keyspace
	// now_in_seconds is read and ignored: dohyo's backends use real time.

	// lazy holds the encoded values (from their count on) when they were
	// checked but not decoded (decodeRequestLazy); values and names are
	// then nil until decodeValues.
	lazy  []byte
	named bool
}

// decodeValues decodes values left encoded by decodeRequestLazy (they
// were checked then: this cannot fail).
func (p *queryParams) decodeValues(version byte) {
	if p.lazy == nil {
		return
	}
	p.values, p.names = p.lazyValues(version)
	p.lazy, p.named = nil, false
}

// lazyValues returns the values left encoded, decoded, without keeping
// them (nil when there are none or they were decoded already).
func (p *queryParams) lazyValues(version byte) ([]bindings.Value, []string) {
	if p.lazy == nil {
		return p.values, p.names
	}
	return readValues(wire.NewReader(p.lazy), version, p.named)
}

// request is a decoded QUERY, PREPARE, EXECUTE or BATCH.
type request struct {
	op           byte
	stream       int16
	query        string // QUERY, PREPARE
	id           []byte // EXECUTE
	resultMetaID []byte // EXECUTE, v5
	keyspace     string // PREPARE, BATCH: v5 per-request keyspace
	params       queryParams
	batch        *proxy.BatchRequest

	// stamp is where the query flags and the timestamp go in body, for a
	// relayed write given the coordinator's timestamp (relay_stamp.go).
	stamp stampPos

	flags   byte              // header flags (tracing, custom payload, beta)
	body    []byte            // the whole decompressed body, for the relay
	payload map[string][]byte // custom payload (nil if none)
}

func decodeRequest(h wire.Header, r *wire.Reader, version byte) (*request, error) {
	return decodeRequestLazy(h, r, version, false)
}

// decodeRequestLazy is decodeRequest that, with lazy set, checks the bound
// values of a QUERY or EXECUTE without decoding them (queryParams.lazy):
// a relayed request needs them only for a Tap that wants them.
func decodeRequestLazy(h wire.Header, r *wire.Reader, version byte, lazy bool) (*request, error) {
	req := &request{op: h.Op, stream: h.Stream}
	var err error
	switch h.Op {
	case wire.OpQuery:
		req.query = r.LongStr()
		req.params, err = decodeParams(r, version, &req.stamp, lazy)
	case wire.OpPrepare:
		req.query = r.LongStr()
		if version >= 5 {
			if flags := r.Int(); flags&wire.PrepareWithKeyspace != 0 {
				req.keyspace = r.Str()
			}
		}
	case wire.OpExecute:
		req.id = r.ShortBytes()
		if version >= 5 {
			req.resultMetaID = r.ShortBytes()
		}
		req.params, err = decodeParams(r, version, &req.stamp, lazy)
	case wire.OpBatch:
		req.batch, req.keyspace, err = decodeBatch(r, version, &req.stamp)
	}
	if err == nil {
		err = r.Err()
	}
	if err != nil {
		return nil, wire.ProtocolErrorf("Invalid %s message: %v", wire.OpName(h.Op), err)
	}
	// Bytes after the last field are ignored, as Cassandra's codecs ignore
	// them (every request opcode; checked on Cassandra 5.0.9). The body is
	// already bounded by the frame limit, so they cost nothing more.
	return req, nil
}

func readConsistency(r *wire.Reader) (bindings.Consistency, error) {
	v := r.Short()
	if v > uint16(bindings.LocalOne) {
		return 0, fmt.Errorf("unknown code %d for a consistency level", v)
	}
	return bindings.Consistency(v), nil
}

func decodeParams(r *wire.Reader, version byte, pos *stampPos, lazy bool) (queryParams, error) {
	var p queryParams
	var err error
	if p.consistency, err = readConsistency(r); err != nil {
		return p, err
	}
	pos.flags = len(r.Rest())
	flags := wire.QueryFlags(r, version)
	if flags&wire.QueryFlagValues != 0 {
		if lazy {
			p.lazy, p.named = r.Rest(), flags&wire.QueryFlagNames != 0
			skipValues(r, version, p.named)
		} else {
			p.values, p.names = readValues(r, version, flags&wire.QueryFlagNames != 0)
		}
	}
	p.skipMetadata = flags&wire.QueryFlagSkipMetadata != 0
	if flags&wire.QueryFlagPageSize != 0 {
		p.pageSize = r.Int()
	}
	if flags&wire.QueryFlagPagingState != 0 {
		p.pagingState = r.Bytes()
	}
	if flags&wire.QueryFlagSerial != 0 {
		if p.serial, err = readConsistency(r); err != nil {
			return p, err
		}
	}
	pos.ts = len(r.Rest())
	if flags&wire.QueryFlagTimestamp != 0 {
		p.timestamp, p.hasTimestamp = r.Long(), true
	}
	if version >= 5 {
		if flags&wire.QueryFlagKeyspace != 0 {
			p.keyspace = r.Str()
		}
		if flags&wire.QueryFlagNowInSeconds != 0 {
			r.Int()
		}
	}
	return p, r.Err()
}

// readValues reads <n> [name] <value> pairs; every value takes at least
// four bytes, which bounds n by what is left before allocating.
func readValues(r *wire.Reader, version byte, named bool) ([]bindings.Value, []string) {
	n := int(r.Short())
	if n*4 > len(r.Rest()) {
		r.Fail(wire.ErrShortBody)
		return nil, nil
	}
	values := make([]bindings.Value, n)
	var names []string
	if named {
		names = make([]string, n)
	}
	for i := 0; i < n && r.Err() == nil; i++ {
		if named {
			names[i] = r.Str()
		}
		values[i] = readValue(r, version)
	}
	return values, names
}

// readValue reads a [value].
func readValue(r *wire.Reader, version byte) bindings.Value {
	b, unset := r.Value(version)
	return bindings.Value{Bytes: b, Unset: unset}
}

// skipValues reads past values as readValues does, failing as it would,
// without decoding them.
func skipValues(r *wire.Reader, version byte, named bool) {
	n := int(r.Short())
	if n*4 > len(r.Rest()) {
		r.Fail(wire.ErrShortBody)
		return
	}
	for i := 0; i < n && r.Err() == nil; i++ {
		if named {
			r.Take(int(r.Short()))
		}
		r.Value(version)
	}
}

func decodeBatch(r *wire.Reader, version byte, pos *stampPos) (*proxy.BatchRequest, string, error) {
	typ := r.Byte()
	if typ > byte(primitive.BatchTypeCounter) {
		return nil, "", fmt.Errorf("unknown batch type %d", typ)
	}
	n := int(r.Short())
	if n*5 > len(r.Rest()) { // kind, an empty id, a value count
		return nil, "", wire.ErrShortBody
	}
	req := &proxy.BatchRequest{Type: cql.BatchType(typ), Entries: make([]proxy.BatchEntry, n)}
	for i := 0; i < n && r.Err() == nil; i++ {
		e := &req.Entries[i]
		switch kind := r.Byte(); kind {
		case byte(primitive.BatchChildTypeQueryString):
			e.Query = r.LongStr()
		case byte(primitive.BatchChildTypePreparedId):
			e.PreparedID = r.ShortBytes()
		default:
			return nil, "", fmt.Errorf("invalid query kind in BATCH messages: must be 0 or 1 but got %d", kind)
		}
		// Names for batch values are unusable by design (CASSANDRA-10246):
		// the flag comes after the children, so children carry none.
		e.Values, _ = readValues(r, version, false)
	}
	children := r.Rest()
	keyspace, err := readBatchTail(r, version, req, pos)
	if err != nil {
		return nil, "", err
	}
	if len(r.Rest()) > 0 {
		if more, ok := wrappedBatchCount(children, version); ok {
			return nil, "", fmt.Errorf("%d statements after the %d counted: the [short] statement count wrapped", more, n)
		}
	}
	return req, keyspace, nil
}

// readBatchTail reads what follows a BATCH's statements: consistency,
// flags and the fields they announce.
func readBatchTail(r *wire.Reader, version byte, req *proxy.BatchRequest, pos *stampPos) (string, error) {
	var err error
	if req.Consistency, err = readConsistency(r); err != nil {
		return "", err
	}
	pos.flags = len(r.Rest())
	flags := wire.QueryFlags(r, version)
	if flags&wire.QueryFlagNames != 0 {
		return "", fmt.Errorf("named values in BATCH are not supported")
	}
	if flags&wire.QueryFlagSerial != 0 {
		if req.SerialConsistency, err = readConsistency(r); err != nil {
			return "", err
		}
	}
	pos.ts = len(r.Rest())
	if flags&wire.QueryFlagTimestamp != 0 {
		req.Timestamp, req.HasTimestamp = r.Long(), true
	}
	var keyspace string
	if version >= 5 {
		if flags&wire.QueryFlagKeyspace != 0 {
			keyspace = r.Str()
		}
		if flags&wire.QueryFlagNowInSeconds != 0 {
			r.Int()
		}
	}
	return keyspace, r.Err()
}

// wrappedBatchCount reports whether rest, the bytes after a BATCH's
// counted statements, is exactly more statements (a multiple of 65,536)
// and a tail: the body of a BATCH of over 65,535 statements whose [short]
// count wrapped. Cassandra would run the counted statements and ignore
// the rest; dohyo refuses the body rather than lose part of a batch
// silently. Other bytes after a BATCH are ignored as Cassandra ignores
// them. Only called when bytes are left over, and bounded by the body.
func wrappedBatchCount(rest []byte, version byte) (int, bool) {
	r := wire.NewReader(rest)
	for more := 1; r.Err() == nil && len(r.Rest()) > 0; more++ {
		switch r.Byte() {
		case byte(primitive.BatchChildTypeQueryString):
			r.LongStr()
		case byte(primitive.BatchChildTypePreparedId):
			r.ShortBytes()
		default:
			return 0, false
		}
		skipValues(r, version, false)
		if more%65536 != 0 || r.Err() != nil {
			continue
		}
		tail := wire.NewReader(r.Rest())
		if _, err := readBatchTail(tail, version, &proxy.BatchRequest{}, &stampPos{}); err == nil && len(tail.Rest()) == 0 {
			return more, true
		}
	}
	return 0, false
}
