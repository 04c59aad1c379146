package cqlserver

import (
	"testing"

	"github.com/dohyo/dohyo/cql/wire"
)

// TestWithTimestamp: a QUERY and a BATCH body given a timestamp decode to
// the same request with that timestamp, in v3, v4 and v5 (flags an [int],
// a keyspace after the timestamp).
func TestWithTimestamp(t *testing.T) {
	const ts = int64(1_700_000_000_123_456)
	for _, version := range []byte{3, 4, 5} {
		flags := func(f uint32) []byte {
			if version >= 5 {
				return wire.AppendInt(nil, int32(f))
			}
			return []byte{byte(f)}
		}
		// QUERY: values, page size, serial consistency (and a v5 keyspace).
		q := wire.AppendLongString(nil, "UPDATE t SET v = ? WHERE k = ?")
		q = wire.AppendShort(q, 1)
		f := wire.QueryFlagValues | wire.QueryFlagPageSize | wire.QueryFlagSerial
		if version >= 5 {
			f |= wire.QueryFlagKeyspace
		}
		q = append(q, flags(f)...)
		q = wire.AppendShort(q, 2)
		q = wire.AppendBytes(q, []byte("x"))
		q = wire.AppendBytes(q, []byte{0, 0, 0, 7})
		q = wire.AppendInt(q, 100)
		q = wire.AppendShort(q, 9)
		if version >= 5 {
			q = wire.AppendString(q, "ks")
		}
		// BATCH: one query child, serial consistency.
		b := []byte{0}
		b = wire.AppendShort(b, 1)
		b = append(b, 0)
		b = wire.AppendLongString(b, "INSERT INTO t (k) VALUES (?)")
		b = wire.AppendShort(b, 1)
		b = wire.AppendBytes(b, []byte{0, 0, 0, 1})
		b = wire.AppendShort(b, 1)
		b = append(b, flags(wire.QueryFlagSerial)...)
		b = wire.AppendShort(b, 9)
		for _, tc := range []struct {
			op   byte
			body []byte
		}{{wire.OpQuery, q}, {wire.OpBatch, b}} {
			h := wire.Header{Op: tc.op}
			req, err := decodeRequest(h, wire.NewReader(tc.body), version)
			if err != nil {
				t.Fatalf("v%d op %d: %v", version, tc.op, err)
			}
			stamped, err := decodeRequest(h, wire.NewReader(withTimestamp(tc.body, version, req.stamp, ts)), version)
			if err != nil {
				t.Fatalf("v%d op %d stamped: %v", version, tc.op, err)
			}
			if tc.op == wire.OpBatch {
				if !stamped.batch.HasTimestamp || stamped.batch.Timestamp != ts || stamped.batch.SerialConsistency != 9 ||
					stamped.batch.Entries[0].Query != req.batch.Entries[0].Query {
					t.Fatalf("v%d stamped batch %+v", version, stamped.batch)
				}
				continue
			}
			p := stamped.params
			if !p.hasTimestamp || p.timestamp != ts || p.pageSize != 100 || p.serial != 9 || len(p.values) != 2 ||
				string(p.values[0].Bytes) != "x" || (version >= 5 && p.keyspace != "ks") || stamped.query != req.query {
				t.Fatalf("v%d stamped query %+v", version, p)
			}
			if req.params.hasTimestamp {
				t.Fatalf("v%d: the original had no timestamp", version)
			}
		}
	}
}
