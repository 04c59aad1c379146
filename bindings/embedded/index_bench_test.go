package embedded

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// BenchmarkIndexWriteOverhead measures INSERT throughput on one table with
// 0, 1 and 3 SAI indexes, on disk, in one run:
//
//	go test -run '^$' -bench BenchmarkIndexWriteOverhead -benchtime 20000x ./bindings/embedded/
//
// Table `ix (k bigint PRIMARY KEY, a int, b int, c text, v text)`, each
// INSERT writing all columns (v: 100 bytes); indexes on a, then b and c.
func BenchmarkIndexWriteOverhead(b *testing.B) {
	value := make([]byte, 100)
	for _, idx := range [][]string{nil, {"a"}, {"a", "b", "c"}} {
		b.Run(fmt.Sprintf("sai-%d", len(idx)), func(b *testing.B) {
			be, err := Open(context.Background(), Config{Dir: b.TempDir()})
			if err != nil {
				b.Fatalf("Open: %v", err)
			}
			defer be.Close()
			mustExec(b, be, createKS)
			mustExec(b, be, "CREATE TABLE ks.ix (k bigint PRIMARY KEY, a int, b int, c text, v text)")
			for _, col := range idx {
				mustExec(b, be, fmt.Sprintf("CREATE INDEX ON ks.ix (%s) USING 'sai'", col))
			}
			ctx := context.Background()
			req := &bindings.Request{Query: "INSERT INTO ks.ix (k, a, b, c, v) VALUES (?, ?, ?, ?, ?)", Consistency: bindings.One,
				Values: []bindings.Value{{}, {}, {}, {}, {Bytes: value}}}
			k := int64(0)
			for b.Loop() {
				req.Values[0] = bigint(k)
				req.Values[1] = bindings.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(k%1000))}
				req.Values[2] = bindings.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(k))}
				req.Values[3] = text(fmt.Sprintf("c%d", k%100))
				k++
				if _, err := be.Execute(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			opsPerSec(b)
		})
	}
}
