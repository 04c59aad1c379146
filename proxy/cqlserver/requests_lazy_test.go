package cqlserver

import (
	"reflect"
	"testing"

	"github.com/dohyo/dohyo/cql/wire"
)

// queryWithValues encodes a v4 QUERY body with values (named or not),
// the last one a null, then a page size.
func queryWithValues(named bool, vals ...[]byte) []byte {
	b := wire.AppendLongString(nil, "SELECT v FROM ks.t WHERE k = ?")
	b = wire.AppendShort(b, 1)
	flags := byte(wire.QueryFlagValues | wire.QueryFlagPageSize)
	if named {
		flags |= byte(wire.QueryFlagNames)
	}
	b = append(b, flags)
	b = wire.AppendShort(b, uint16(len(vals)))
	for i, v := range vals {
		if named {
			b = wire.AppendString(b, string(rune('a'+i)))
		}
		b = wire.AppendBytes(b, v)
	}
	return wire.AppendInt(b, 100)
}

// TestDecodeRequestLazy: values left encoded decode to what a full decode
// gives, the other parameters are read alike, and malformed values fail
// the lazy decode as they fail the full one.
func TestDecodeRequestLazy(t *testing.T) {
	h := wire.Header{Version: 4, Op: wire.OpQuery, Stream: 3}
	for _, named := range []bool{false, true} {
		body := queryWithValues(named, []byte{0, 0, 0, 1}, []byte("xy"), nil)
		full, err := decodeRequest(h, wire.NewReader(body), 4)
		if err != nil {
			t.Fatal(err)
		}
		lazy, err := decodeRequestLazy(h, wire.NewReader(body), 4, true)
		if err != nil {
			t.Fatal(err)
		}
		if lazy.params.values != nil || lazy.params.names != nil || lazy.params.lazy == nil {
			t.Fatalf("named %v: lazy decode decoded the values", named)
		}
		if lazy.params.pageSize != 100 || lazy.stamp != full.stamp {
			t.Fatalf("named %v: page size %d, stamp %+v; want 100, %+v", named, lazy.params.pageSize, lazy.stamp, full.stamp)
		}
		if v, n := lazy.params.lazyValues(4); !reflect.DeepEqual(v, full.params.values) || !reflect.DeepEqual(n, full.params.names) {
			t.Fatalf("named %v: lazyValues %v %v, want %v %v", named, v, n, full.params.values, full.params.names)
		}
		lazy.params.decodeValues(4)
		if !reflect.DeepEqual(lazy.params, full.params) {
			t.Fatalf("named %v: after decodeValues %+v, want %+v", named, lazy.params, full.params)
		}
		// Truncated inside the values: both decodes refuse it.
		short := body[:len(body)-8]
		_, errFull := decodeRequest(h, wire.NewReader(short), 4)
		_, errLazy := decodeRequestLazy(h, wire.NewReader(short), 4, true)
		if errFull == nil || errLazy == nil || errFull.Error() != errLazy.Error() {
			t.Fatalf("named %v: truncated: full %v, lazy %v", named, errFull, errLazy)
		}
	}
}
