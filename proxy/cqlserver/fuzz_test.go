package cqlserver

import (
	"bytes"
	"context"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/dohyo/dohyo/cql/wire"
)

// fuzzSeeds are valid conversations in each version, plus a few broken
// ones; the fuzzer mutates them.
func fuzzSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, v := range allVersions {
		c := &client{t: t, version: v}
		c.codec = newClient(t, nopConn{}, v).codec
		var b bytes.Buffer
		b.Write(c.encode(&message.Options{}, 1))
		b.Write(c.encode(message.NewStartup(), 2))
		reqs := [][]byte{
			c.encode(&message.Query{Query: "SELECT * FROM ks.t WHERE k = ?", Options: &message.QueryOptions{Consistency: 1,
				PositionalValues: []*primitive.Value{primitive.NewValue(be32(1))}, PageSize: 10}}, 3),
			c.encode(&message.Prepare{Query: "SELECT * FROM ks.t WHERE k = ?"}, 4),
			c.encode(&message.Query{Query: "SELECT * FROM system.local WHERE key = 'local'", Options: &message.QueryOptions{Consistency: 1}}, 5),
			c.encode(&message.Register{EventTypes: []primitive.EventType{primitive.EventTypeSchemaChange}}, 6),
			c.encode(&message.Batch{Children: []*message.BatchChild{{Query: "INSERT INTO ks.t (k) VALUES (1)"}}, Consistency: 1}, 7),
			c.encode(&message.Query{Query: "CREATE TABLE ks.f (k int PRIMARY KEY)", Options: &message.QueryOptions{Consistency: 1}}, 8),
		}
		if v < 5 {
			for _, r := range reqs {
				b.Write(r)
			}
		} else {
			seg := segment.NewCodec()
			for _, r := range reqs {
				seg.EncodeSegment(&segment.Segment{Header: &segment.Header{IsSelfContained: true},
					Payload: &segment.Payload{UncompressedData: r}}, &b)
			}
		}
		seeds = append(seeds, b.Bytes())
	}
	seeds = append(seeds,
		rawFrame(66, 0, 0, wire.OpOptions, nil),
		[]byte{0x02, 0, 0, wire.OpOptions, 0, 0, 0, 0},
		rawFrame(4, 0, 0, wire.OpStartup, []byte{0, 1, 0, 11}),
		rawFrame(4, wire.FlagCompressed, 0, wire.OpQuery, []byte{0xff, 0xff}),
		rawFrame(4, 0, 0, wire.OpQuery, bytes.Repeat([]byte{0xff}, 20)),
	)
	return seeds
}

// nopConn lets newClient build a codec without a connection.
type nopConn struct{ net.Conn }

func (nopConn) SetDeadline(time.Time) error { return nil }
func (nopConn) Close() error                { return nil }

// FuzzServeConn writes arbitrary bytes to a connection served by ServeConn:
// no panic, ServeConn returns, and no goroutine is left behind.
func FuzzServeConn(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	ts := newTestServer(f, func(c *Config) { c.MaxFrameBytes = 1 << 20 })
	close(ts.fake.release) // ks.slow answers at once
	f.Fuzz(func(t *testing.T, data []byte) {
		before := runtime.NumGoroutine()
		a, b := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			ts.srv.ServeConn(context.Background(), b)
		}()
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			io.Copy(io.Discard, a)
		}()
		a.SetWriteDeadline(time.Now().Add(2 * time.Second))
		a.Write(data) // fails early when the server closes on a protocol error
		a.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("ServeConn did not return")
		}
		<-drained
		deadline := time.Now().Add(30 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Fatalf("goroutines: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(time.Millisecond)
		}
	})
}
