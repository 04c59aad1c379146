package engine

import (
	"context"
	"strconv"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// YCSB-like table: one text key, ten text fields.
const benchDDL = "CREATE TABLE usertable (y_id text PRIMARY KEY, field0 text, field1 text, field2 text, field3 text, field4 text, field5 text, field6 text, field7 text, field8 text, field9 text)"

func benchEngine(b *testing.B) *Engine {
	b.Helper()
	e, err := New(context.Background(), newMemKV(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		benchDDL,
	} {
		if _, err := e.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: q}); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

const benchInsert = "INSERT INTO usertable (y_id, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

func benchValues(i int) []bindings.Value {
	vals := make([]bindings.Value, 11)
	key := make([]byte, 0, 16)
	key = append(key, "user"...)
	key = strconv.AppendInt(key, int64(i), 10)
	vals[0] = bindings.Value{Bytes: key}
	field := make([]byte, 100)
	for j := 1; j < 11; j++ {
		vals[j] = bindings.Value{Bytes: field}
	}
	return vals
}

func BenchmarkEngineInsert(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: benchInsert, Values: benchValues(i)}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEngineSelectPoint(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	const n = 1000
	for i := 0; i < n; i++ {
		if _, err := e.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: benchInsert, Values: benchValues(i)}); err != nil {
			b.Fatal(err)
		}
	}
	const q = "SELECT * FROM usertable WHERE y_id = ?"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := e.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: q, Values: benchValues(i % n)[:1]})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Rows) != 1 {
			b.Fatalf("got %d rows", len(res.Rows))
		}
	}
}

// BenchmarkEngineScan reads a clustered table through the scan path: 200
// partitions of 5 rows, each partition with a static column and each row
// with a set (the row decoder's element cells). all: SELECT * of the whole
// table; filtered: a regular-column filter that half the rows pass;
// distinct: SELECT DISTINCT of the partition keys and statics.
func BenchmarkEngineScan(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	exec := func(q string, vals ...bindings.Value) *bindings.Result {
		res, err := e.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: q, Values: vals})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	exec("CREATE TABLE scanned (p int, c int, s text static, v int, tags set<text>, PRIMARY KEY (p, c))")
	const parts, rows = 200, 5
	for p := range parts {
		exec("UPDATE scanned SET s = 'static' WHERE p = ?", bindings.Value{Bytes: be32(int32(p))})
		for c := range rows {
			exec("INSERT INTO scanned (p, c, v, tags) VALUES (?, ?, ?, {'a', 'b', 'c'})",
				bindings.Value{Bytes: be32(int32(p))}, bindings.Value{Bytes: be32(int32(c))}, bindings.Value{Bytes: be32(int32(c % 2))})
		}
	}
	for _, bc := range []struct {
		name, q string
		want    int
	}{
		{"all", "SELECT * FROM scanned", parts * rows},
		{"filtered", "SELECT * FROM scanned WHERE v = 1 ALLOW FILTERING", parts * (rows / 2)},
		{"distinct", "SELECT DISTINCT p, s FROM scanned", parts},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := exec(bc.q); len(res.Rows) != bc.want {
					b.Fatalf("%s: got %d rows, want %d", bc.q, len(res.Rows), bc.want)
				}
			}
		})
	}
}
