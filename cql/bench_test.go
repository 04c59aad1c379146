package cql

import "testing"

// benchMix is a typical OLTP mix: a point read, a wide insert, a collection
// update and a batch.
var benchMix = []string{
	"SELECT id, name, email, created FROM ks.users WHERE id = ? AND bucket = ? LIMIT 1",
	"INSERT INTO ks.events (id, ts, kind, source, payload, tags, attrs, score, ok, ttl_s) VALUES (?, ?, 'click', 'web', 0xCAFE, {'a', 'b'}, {'k': 'v'}, 1.5, true, 3600) USING TTL 86400",
	"UPDATE ks.profiles SET tags = tags + {'new'}, counters['visits'] = 10, history = history + [?], last = toTimestamp(now()) WHERE id = ? IF EXISTS",
	"BEGIN UNLOGGED BATCH INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?); INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?); DELETE FROM ks.t WHERE k = ? AND c = ?; APPLY BATCH",
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchMix {
			if _, err := Parse(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(benchMix))/b.Elapsed().Seconds(), "stmts/s")
}

func BenchmarkFingerprint(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchMix {
			_ = Fingerprint(s)
		}
	}
	b.ReportMetric(float64(b.N*len(benchMix))/b.Elapsed().Seconds(), "stmts/s")
}
