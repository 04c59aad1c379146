package wire

import (
	"fmt"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql/wire"
)

// Request bodies (native_protocol_v5.spec §4.1.4-4.1.7), decoded as
// proxy/cqlserver decodes them, into capture types.

// request is a request awaiting its response.
type request struct {
	op       byte
	time     time.Time
	query    string // QUERY, PREPARE
	id       []byte // EXECUTE
	keyspace string // v5 per-request keyspace (QUERY, EXECUTE, PREPARE, BATCH)
	params   params
	batch    *batch
	size     int // body bytes held
}

type params struct {
	consistency  bindings.Consistency
	serial       bindings.Consistency
	hasSerial    bool
	values       []capture.Value
	names        []string
	pageSize     int32
	paging       bool
	pagingState  []byte
	timestamp    int64
	hasTimestamp bool
}

type batchChild struct {
	query  string
	id     []byte
	values []capture.Value
}

type batch struct {
	typ      uint8
	children []batchChild
}

// decodeRequest decodes a QUERY, PREPARE, EXECUTE or BATCH body.
func decodeRequest(op byte, version byte, body []byte) (*request, error) {
	r := wire.NewReader(body)
	req := &request{op: op, size: len(body)}
	var err error
	switch op {
	case wire.OpQuery:
		req.query = r.LongStr()
		req.params, req.keyspace, err = decodeParams(r, version)
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
			r.ShortBytes() // result metadata id
		}
		req.params, req.keyspace, err = decodeParams(r, version)
	case wire.OpBatch:
		req.batch, req.params, req.keyspace, err = decodeBatch(r, version)
	}
	if err == nil {
		err = r.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("invalid %s message: %w", wire.OpName(op), err)
	}
	return req, nil
}

func consistency(r *wire.Reader) (bindings.Consistency, error) {
	v := r.Short()
	if v > uint16(bindings.LocalOne) {
		return 0, fmt.Errorf("unknown consistency code %d", v)
	}
	return bindings.Consistency(v), nil
}

func decodeParams(r *wire.Reader, version byte) (p params, keyspace string, err error) {
	if p.consistency, err = consistency(r); err != nil {
		return p, "", err
	}
	flags := wire.QueryFlags(r, version)
	if flags&wire.QueryFlagValues != 0 {
		p.values, p.names = values(r, version, flags&wire.QueryFlagNames != 0)
	}
	if flags&wire.QueryFlagPageSize != 0 {
		p.pageSize = r.Int()
	}
	if flags&wire.QueryFlagPagingState != 0 {
		p.paging, p.pagingState = true, r.Bytes()
		if p.pagingState == nil {
			p.pagingState = []byte{}
		}
	}
	if flags&wire.QueryFlagSerial != 0 {
		if p.serial, err = consistency(r); err != nil {
			return p, "", err
		}
		p.hasSerial = true
	}
	if flags&wire.QueryFlagTimestamp != 0 {
		p.timestamp, p.hasTimestamp = r.Long(), true
	}
	if version >= 5 {
		if flags&wire.QueryFlagKeyspace != 0 {
			keyspace = r.Str()
		}
		if flags&wire.QueryFlagNowInSeconds != 0 {
			r.Int()
		}
	}
	return p, keyspace, r.Err()
}

// values reads <n> [name] <value> pairs; every value takes at least four
// bytes, which bounds n by what is left before allocating.
func values(r *wire.Reader, version byte, named bool) ([]capture.Value, []string) {
	n := int(r.Short())
	if n*4 > len(r.Rest()) {
		r.Fail(wire.ErrShortBody)
		return nil, nil
	}
	vals := make([]capture.Value, n)
	var names []string
	if named {
		names = make([]string, n)
	}
	for i := 0; i < n && r.Err() == nil; i++ {
		if named {
			names[i] = r.Str()
		}
		b, unset := r.Value(version)
		vals[i] = capture.Value{Bytes: b, Unset: unset}
	}
	return vals, names
}

func decodeBatch(r *wire.Reader, version byte) (*batch, params, string, error) {
	var p params
	typ := r.Byte()
	if typ > 2 {
		return nil, p, "", fmt.Errorf("unknown batch type %d", typ)
	}
	n := int(r.Short())
	if n*5 > len(r.Rest()) {
		return nil, p, "", wire.ErrShortBody
	}
	b := &batch{typ: typ, children: make([]batchChild, n)}
	for i := 0; i < n && r.Err() == nil; i++ {
		ch := &b.children[i]
		switch kind := r.Byte(); kind {
		case 0:
			ch.query = r.LongStr()
		case 1:
			ch.id = r.ShortBytes()
		default:
			return nil, p, "", fmt.Errorf("invalid batch child kind %d", kind)
		}
		ch.values, _ = values(r, version, false)
	}
	var err error
	if p.consistency, err = consistency(r); err != nil {
		return nil, p, "", err
	}
	flags := wire.QueryFlags(r, version)
	if flags&wire.QueryFlagSerial != 0 {
		if p.serial, err = consistency(r); err != nil {
			return nil, p, "", err
		}
		p.hasSerial = true
	}
	if flags&wire.QueryFlagTimestamp != 0 {
		p.timestamp, p.hasTimestamp = r.Long(), true
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
	return b, p, keyspace, r.Err()
}
