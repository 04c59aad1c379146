package cqlserver

import (
	"bufio"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
)

// BenchmarkGuardsCost measures what the listener guards cost with
// authentication off: point QUERYs over loopback TCP against a server
// with every guard at its default (plus a 10 min idle timeout, as dohyo
// serve sets) and one with the guards effectively off, in alternating
// rounds within one run so machine noise hits both alike. Sequential
// round trips and pipelined windows of 64 are both measured.
func BenchmarkGuardsCost(b *testing.B) {
	be := benchBackend{res: &bindings.Result{Kind: bindings.ResultRows, Columns: tCols,
		Rows: [][][]byte{{be32(1), []byte("value")}}}}
	type side struct {
		name string
		c    *client
		r    *bufio.Reader
		q    []byte
		took time.Duration
		n    int
	}
	mk := func(name string, mod func(*Config)) *side {
		ts := newTestServerWith(b, be, nil, mod)
		addr := ts.listen(b)
		c := ts.tcpClient(b, addr, primitive.ProtocolVersion4)
		c.startup("")
		c.nc.SetDeadline(time.Time{})
		q := c.encode(&message.Query{Query: "SELECT * FROM ks.t WHERE k = ?", Options: &message.QueryOptions{
			Consistency: 1, PositionalValues: []*primitive.Value{primitive.NewValue(be32(1))}}}, 1)
		return &side{name: name, c: c, r: bufio.NewReader(c.nc), q: q}
	}
	on := mk("on", func(c *Config) { c.IdleTimeout = 10 * time.Minute })
	off := mk("off", func(c *Config) {
		c.HandshakeTimeout, c.FrameReadTimeout, c.WriteTimeout = -1, -1, -1
		c.MaxPendingConnections, c.OutboundBytes = -1, 1<<40
		c.PreAuthFrameBytes = DefaultMaxFrameBytes
		c.AuthBackoff.Threshold = -1
	})
	for _, mode := range []struct {
		name   string
		window int
	}{{"sequential", 1}, {"pipelined64", 64}} {
		b.Run(mode.name, func(b *testing.B) {
			batch := make([]byte, 0, len(on.q)*mode.window)
			round := func(s *side, frames int) {
				batch = batch[:0]
				for i := 0; i < mode.window; i++ {
					batch = append(batch, s.q...)
				}
				t0 := time.Now()
				for done := 0; done < frames; done += mode.window {
					if _, err := s.c.nc.Write(batch); err != nil {
						b.Fatal(err)
					}
					for i := 0; i < mode.window; i++ {
						if err := skipResponse(s.r, false); err != nil {
							b.Fatal(err)
						}
					}
					s.n += mode.window
				}
				s.took += time.Since(t0)
			}
			on.took, on.n, off.took, off.n = 0, 0, 0, 0
			const rounds = 20
			per := max(b.N/rounds, mode.window)
			round(on, 2000) // warm up both
			round(off, 2000)
			on.took, on.n, off.took, off.n = 0, 0, 0, 0
			b.ResetTimer()
			for r := 0; r < rounds; r++ {
				if r%2 == 0 {
					round(on, per)
					round(off, per)
				} else {
					round(off, per)
					round(on, per)
				}
			}
			onNs := float64(on.took.Nanoseconds()) / float64(on.n)
			offNs := float64(off.took.Nanoseconds()) / float64(off.n)
			b.ReportMetric(onNs, "guards-on-ns/frame")
			b.ReportMetric(offNs, "guards-off-ns/frame")
			b.ReportMetric(100*(onNs-offNs)/offNs, "overhead-%")
		})
	}
}
