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
	onCfg := func(c *Config) { c.IdleTimeout = 10 * time.Minute }
	offCfg := func(c *Config) {
		c.HandshakeTimeout, c.FrameReadTimeout, c.WriteTimeout = -1, -1, -1
		c.MaxPendingConnections, c.OutboundBytes = -1, 1<<40
		c.PreAuthFrameBytes = DefaultMaxFrameBytes
		c.AuthBackoff.Threshold = -1
	}
	for _, mode := range []struct {
		name   string
		window int
	}{{"sequential", 1}, {"pipelined64", 64}} {
		b.Run(mode.name, func(b *testing.B) {
			var batch []byte
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
			// A fresh pair of servers per round: a server instance's own
			// luck (goroutine placement, caches) must not favour one side.
			const rounds = 20
			per := max(b.N/rounds, mode.window)
			var onT, offT time.Duration
			var onN, offN int
			b.ResetTimer()
			for r := 0; r < rounds; r++ {
				b.StopTimer()
				on, off := mk("on", onCfg), mk("off", offCfg)
				round(on, 1000) // warm up
				round(off, 1000)
				on.took, on.n, off.took, off.n = 0, 0, 0, 0
				b.StartTimer()
				if r%2 == 0 {
					round(on, per)
					round(off, per)
				} else {
					round(off, per)
					round(on, per)
				}
				onT, onN, offT, offN = onT+on.took, onN+on.n, offT+off.took, offN+off.n
				on.c.nc.Close()
				off.c.nc.Close()
			}
			onNs := float64(onT.Nanoseconds()) / float64(onN)
			offNs := float64(offT.Nanoseconds()) / float64(offN)
			b.ReportMetric(onNs, "guards-on-ns/frame")
			b.ReportMetric(offNs, "guards-off-ns/frame")
			b.ReportMetric(100*(onNs-offNs)/offNs, "overhead-%")
		})
	}
}
