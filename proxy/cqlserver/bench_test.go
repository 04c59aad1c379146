package cqlserver

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// benchBackend answers every statement with the same small row.
type benchBackend struct{ res *bindings.Result }

func (b benchBackend) Execute(context.Context, *bindings.Request) (*bindings.Result, error) {
	return b.res, nil
}
func (b benchBackend) Batch(context.Context, *bindings.BatchRequest) (*bindings.Result, error) {
	return b.res, nil
}
func (benchBackend) Close() error { return nil }

// BenchmarkQueryRoundTrip measures point QUERYs through an in-process
// server over loopback TCP, one at a time (frames/s is round trips).
func BenchmarkQueryRoundTrip(b *testing.B) {
	for _, v := range []primitive.ProtocolVersion{4, 5} {
		b.Run(v.String(), func(b *testing.B) {
			be := benchBackend{res: &bindings.Result{Kind: bindings.ResultRows, Columns: tCols,
				Rows: [][][]byte{{be32(1), []byte("value")}}}}
			ts := newTestServerWith(b, be, nil, nil)
			addr := ts.listen(b)
			c := ts.tcpClient(b, addr, v)
			c.startup("")
			c.nc.SetDeadline(time.Time{})
			q := c.encode(&message.Query{Query: "SELECT * FROM ks.t WHERE k = ?", Options: &message.QueryOptions{
				Consistency: 1, PositionalValues: []*primitive.Value{primitive.NewValue(be32(1))}}}, 1)
			if v >= 5 {
				var out bytesBuffer
				c.encodeSegment(&out, q, true)
				q = out.b
			}
			r := bufio.NewReader(c.nc)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.nc.Write(q); err != nil {
					b.Fatal(err)
				}
				if err := skipResponse(r, v >= 5); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}

// skipResponse reads one response frame (or one v5 segment holding it).
func skipResponse(r *bufio.Reader, v5 bool) error {
	if v5 {
		h := make([]byte, wire.SegHeaderPlain+wire.SegCRC24Len)
		if _, err := io.ReadFull(r, h); err != nil {
			return err
		}
		n := int(uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2]&1)<<16)
		_, err := r.Discard(n + wire.SegCRC32Len)
		return err
	}
	h := make([]byte, wire.HeaderLen)
	if _, err := io.ReadFull(r, h); err != nil {
		return err
	}
	_, err := r.Discard(int(binary.BigEndian.Uint32(h[5:])))
	return err
}

type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
