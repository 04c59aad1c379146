package cqlserver

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/engine"
)

// BenchmarkExecutedPath measures one prepared point read and one prepared
// point write through the whole executed path — CQL server (frame read,
// decode, dispatch) → coordinator → wide-column engine → in-memory Pebble
// store → response frame — over loopback TCP, one request at a time. With
// -benchmem the allocations per request are the server's (the client loop
// writes pre-encoded frames and discards the answers into a reused buffer):
//
//	go test -run '^$' -bench BenchmarkExecutedPath -benchmem -benchtime 20000x ./proxy/cqlserver/
func BenchmarkExecutedPath(b *testing.B) {
	for _, v := range []primitive.ProtocolVersion{4, 5} {
		b.Run(v.String(), func(b *testing.B) {
			be, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { be.Close() })
			// dohyo serve's default request timeout: every request has a deadline.
			ts := newTestServerWith(b, be, nil, func(c *Config) { c.RequestTimeout = DefaultRequestTimeout })
			c := ts.tcpClient(b, ts.listen(b), v)
			c.startup("")
			for _, q := range []string{
				"CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE bench.usertable (y_id text PRIMARY KEY, field0 text)",
			} {
				if m := c.query(q, nil); m.GetOpCode() != primitive.OpCodeResult {
					b.Fatalf("%s: %v", q, m)
				}
			}
			value := make([]byte, 100)
			for i := range value {
				value[i] = 'a' + byte(i%26)
			}
			const rows = 1000
			upd := c.prepare("UPDATE bench.usertable SET field0 = ? WHERE y_id = ?")
			sel := c.prepare("SELECT * FROM bench.usertable WHERE y_id = ?")
			keys := make([][]byte, rows)
			for i := range keys {
				keys[i] = []byte("user" + strconv.Itoa(i))
				c.execute(upd, value, keys[i])
			}
			// Pre-encoded EXECUTE frames, one per key and kind.
			frames := func(p prepared, withValue bool) [][]byte {
				out := make([][]byte, rows)
				for i, k := range keys {
					vals := []*primitive.Value{primitive.NewValue(k)}
					if withValue {
						vals = []*primitive.Value{primitive.NewValue(value), primitive.NewValue(k)}
					}
					f := c.encode(&message.Execute{QueryId: p.id, ResultMetadataId: p.resultID, Options: &message.QueryOptions{
						Consistency: primitive.ConsistencyLevelOne, PositionalValues: vals}}, 1)
					if v >= 5 {
						var seg bytesBuffer
						c.encodeSegment(&seg, f, true)
						f = seg.b
					}
					out[i] = f
				}
				return out
			}
			for _, op := range []struct {
				name   string
				frames [][]byte
			}{{"read", frames(sel, false)}, {"write", frames(upd, true)}} {
				b.Run(op.name, func(b *testing.B) {
					r := bufio.NewReaderSize(c.nc, 64<<10)
					c.nc.SetDeadline(time.Time{})
					var hdr [wire.HeaderLen + wire.SegCRC24Len]byte
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						if _, err := c.nc.Write(op.frames[i%rows]); err != nil {
							b.Fatal(err)
						}
						i += 7
						if err := discardResponse(r, hdr[:], v >= 5); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
				})
			}
		})
	}
}

// prepared is a PREPARE's answer.
type prepared struct{ id, resultID []byte }

func (c *client) prepare(q string) prepared {
	c.t.Helper()
	m := c.do(&message.Prepare{Query: q}).Body.Message
	p, ok := m.(*message.PreparedResult)
	if !ok {
		c.t.Fatalf("PREPARE %s: %v", q, m)
	}
	return prepared{id: p.PreparedQueryId, resultID: p.ResultMetadataId}
}

func (c *client) execute(p prepared, vals ...[]byte) {
	c.t.Helper()
	pv := make([]*primitive.Value, len(vals))
	for i, v := range vals {
		pv[i] = primitive.NewValue(v)
	}
	m := c.do(&message.Execute{QueryId: p.id, ResultMetadataId: p.resultID, Options: &message.QueryOptions{
		Consistency: primitive.ConsistencyLevelOne, PositionalValues: pv}}).Body.Message
	if m.GetOpCode() != primitive.OpCodeResult {
		c.t.Fatalf("EXECUTE: %v", m)
	}
}

// discardResponse reads one response frame (or the v5 segment holding it)
// into nothing, without allocating.
func discardResponse(r *bufio.Reader, hdr []byte, v5 bool) error {
	if v5 {
		h := hdr[:wire.SegHeaderPlain+wire.SegCRC24Len]
		if _, err := readFull(r, h); err != nil {
			return err
		}
		n := int(uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2]&1)<<16)
		_, err := r.Discard(n + wire.SegCRC32Len)
		return err
	}
	h := hdr[:wire.HeaderLen]
	if _, err := readFull(r, h); err != nil {
		return err
	}
	if h[4] == byte(primitive.OpCodeError) {
		return errResponse
	}
	_, err := r.Discard(int(binary.BigEndian.Uint32(h[5:])))
	return err
}

func readFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

var errResponse = errors.New("server answered with an ERROR frame")
