package cqlserver

import (
	"testing"
)

// TestWithTimestamp: a QUERY and a BATCH body given a timestamp decode to
// the same request with that timestamp, in v3, v4 and v5 (flags an [int],
// a keyspace after the timestamp).
func TestWithTimestamp(t *testing.T) {
	const ts = int64(1_700_000_000_123_456)
	for _, version := range []byte{3, 4, 5} {
		flags := func(f uint32) []byte {
			if version >= 5 {
				return AppendInt(nil, int32(f))
			}
			return []byte{byte(f)}
		}
		// QUERY: values, page size, serial consistency (and a v5 keyspace).
		q := AppendLongString(nil, "UPDATE t SET v = ? WHERE k = ?")
		q = AppendShort(q, 1)
		f := qfValues | qfPageSize | qfSerial
		if version >= 5 {
			f |= qfKeyspace
		}
		q = append(q, flags(f)...)
		q = AppendShort(q, 2)
		q = AppendBytes(q, []byte("x"))
		q = AppendBytes(q, []byte{0, 0, 0, 7})
		q = AppendInt(q, 100)
		q = AppendShort(q, 9)
		if version >= 5 {
			q = AppendString(q, "ks")
		}
		// BATCH: one query child, serial consistency.
		b := []byte{0}
		b = AppendShort(b, 1)
		b = append(b, 0)
		b = AppendLongString(b, "INSERT INTO t (k) VALUES (?)")
		b = AppendShort(b, 1)
		b = AppendBytes(b, []byte{0, 0, 0, 1})
		b = AppendShort(b, 1)
		b = append(b, flags(qfSerial)...)
		b = AppendShort(b, 9)
		for _, tc := range []struct {
			op   byte
			body []byte
		}{{OpQuery, q}, {OpBatch, b}} {
			h := Header{Op: tc.op}
			req, err := decodeRequest(h, &Reader{b: tc.body}, version)
			if err != nil {
				t.Fatalf("v%d op %d: %v", version, tc.op, err)
			}
			stamped, err := decodeRequest(h, &Reader{b: withTimestamp(tc.body, version, req.stamp, ts)}, version)
			if err != nil {
				t.Fatalf("v%d op %d stamped: %v", version, tc.op, err)
			}
			if tc.op == OpBatch {
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
