package widecolumn

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
