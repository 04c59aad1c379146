package fql

import (
	"fmt"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// Options are the statement's <query_parameters> as Cassandra re-encoded
// them for the log (QueryOptions.codec, in the entry's protocol version).
// The server's encoder never writes value names: named values arrive
// already bound to positions.
type Options struct {
	Consistency       bindings.Consistency
	Flags             uint32
	Values            []Value // single statements; a batch's are in Entry.Values
	PageSize          int32   // when Flags has wire.QueryFlagPageSize
	PagingState       []byte  // nil when absent
	SerialConsistency bindings.Consistency
	Timestamp         int64 // client timestamp (µs) when HasTimestamp
	HasTimestamp      bool
	Keyspace          string // v5 per-request keyspace
	NowInSeconds      int32  // v5, when Flags has wire.QueryFlagNowInSeconds
}

// decodeOptions decodes b with dohyo's native-protocol body reader. A
// batch's options have the same layout, without values.
func decodeOptions(b []byte, version byte) (Options, error) {
	var o Options
	r := wire.NewReader(b)
	o.Consistency = bindings.Consistency(r.Short())
	o.Flags = wire.QueryFlags(r, version)
	if o.Flags&wire.QueryFlagValues != 0 {
		n := int(r.Short())
		if n*4 > len(r.Rest()) {
			return o, fmt.Errorf("%d values in %d bytes", n, len(r.Rest()))
		}
		o.Values = make([]Value, n)
		named := o.Flags&wire.QueryFlagNames != 0
		for i := 0; i < n && r.Err() == nil; i++ {
			if named {
				r.Str()
			}
			v, unset := r.Value(version)
			if v != nil {
				v = append([]byte{}, v...)
			}
			o.Values[i] = Value{Bytes: v, Unset: unset}
		}
	}
	if o.Flags&wire.QueryFlagPageSize != 0 {
		o.PageSize = r.Int()
	}
	if o.Flags&wire.QueryFlagPagingState != 0 {
		if ps := r.Bytes(); ps != nil {
			o.PagingState = append([]byte{}, ps...)
		}
	}
	if o.Flags&wire.QueryFlagSerial != 0 {
		o.SerialConsistency = bindings.Consistency(r.Short())
	}
	if o.Flags&wire.QueryFlagTimestamp != 0 {
		o.Timestamp, o.HasTimestamp = r.Long(), true
	}
	if version >= 5 {
		if o.Flags&wire.QueryFlagKeyspace != 0 {
			o.Keyspace = r.Str()
		}
		if o.Flags&wire.QueryFlagNowInSeconds != 0 {
			o.NowInSeconds = r.Int()
		}
	}
	if err := r.Err(); err != nil {
		return o, err
	}
	if o.Consistency > bindings.LocalOne || o.SerialConsistency > bindings.LocalOne {
		return o, fmt.Errorf("unknown consistency code in %d/%d", o.Consistency, o.SerialConsistency)
	}
	if len(r.Rest()) > 0 {
		return o, fmt.Errorf("%d bytes after the query parameters", len(r.Rest()))
	}
	return o, nil
}
