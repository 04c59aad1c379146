package wire

import (
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/capture/pcap"
)

// BenchmarkDecode: captured packets of point reads (a prepared SELECT,
// one row each) through reassembly, framing, pairing and records.
func BenchmarkDecode(b *testing.B) {
	for _, comp := range []string{"", "lz4"} {
		b.Run("compression="+comp, func(b *testing.B) {
			t := &testing.T{}
			c := newConvo(t, 4, comp)
			c.handshake()
			c.send(0, 1, &message.Prepare{Query: "SELECT v FROM ks.t WHERE k = ?"})
			c.send(1, 1, &message.PreparedResult{PreparedQueryId: []byte("id-sel"),
				VariablesMetadata: &message.VariablesMetadata{}, ResultMetadata: &message.RowsMetadata{}})
			for i := range 1000 {
				st := int16(i%1000 + 2)
				c.send(0, st, &message.Execute{QueryId: []byte("id-sel"), Options: &message.QueryOptions{
					Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{val([]byte{0, 0, 0, byte(i)})}}})
				c.send(1, st, rows(1))
			}
			pkts := c.packets(segOpts{})
			var bytes int64
			for _, p := range pkts {
				bytes += int64(len(p.Data))
			}
			b.SetBytes(bytes)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				n := 0
				d := NewDecoder(Config{}, func(*capture.Record) error { n++; return nil })
				for _, p := range pkts {
					if err := d.Packet(pcap.Packet{Time: p.Time, Link: p.Link, Data: p.Data}); err != nil {
						b.Fatal(err)
					}
				}
				if n != 1000 {
					b.Fatalf("%d records", n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/request")
		})
	}
}
