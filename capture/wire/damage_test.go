package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/capture/pcap"
	"github.com/dohyo/dohyo/capture/pcap/pcaptest"
)

// rawConvo is a conversation of raw bytes (not CQL).
func rawConvo(t *testing.T, client, server []byte) *convo {
	c := newConvo(t, 4, "")
	c.chunks = []chunk{{dir: 0, at: c.now, data: client}, {dir: 1, at: c.now.Add(time.Millisecond), data: server}}
	return c
}

func TestTLSAndGarbage(t *testing.T) {
	hello := []byte{0x16, 0x03, 0x01, 0x00, 0x40, 0x01, 0x00, 0x00, 0x3c, 0x03, 0x03}
	_, st := decodeFile(t, rawConvo(t, hello, []byte{0x16, 0x03, 0x03, 0, 2, 2, 0}).packets(segOpts{}), Config{})
	if st.Skipped["TLS (encrypted: not decodable)"] != 1 {
		t.Fatalf("TLS: skipped %v", st.Skipped)
	}
	// Mid-stream TLS application data.
	_, st = decodeFile(t, rawConvo(t, []byte{0x17, 0x03, 0x03, 0, 5, 1, 2, 3, 4, 5}, nil).packets(segOpts{noSYN: true}), Config{})
	if st.Skipped["TLS (encrypted: not decodable)"] != 1 {
		t.Fatalf("TLS mid-stream: skipped %v", st.Skipped)
	}
	_, st = decodeFile(t, rawConvo(t, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), []byte("HTTP/1.1 400 Bad Request\r\n\r\n")).packets(segOpts{}), Config{})
	if st.Skipped["not CQL (garbage on the server port)"] != 1 {
		t.Fatalf("HTTP: skipped %v", st.Skipped)
	}
	// Mid-stream garbage: no frame boundary is ever found.
	_, st = decodeFile(t, rawConvo(t, bytes.Repeat([]byte("garbage!"), 100), nil).packets(segOpts{noSYN: true}), Config{})
	if st.Skipped["open before the capture: no CQL frame boundary found"] != 1 {
		t.Fatalf("garbage mid-stream: skipped %v", st.Skipped)
	}
}

func TestMemoryCaps(t *testing.T) {
	c := newConvo(t, 4, "")
	c.handshake()
	c.send(0, 1, &message.Query{Query: string(bytes.Repeat([]byte("x"), 5000)), Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	c.send(1, 1, &message.VoidResult{})
	_, st := decodeFile(t, c.packets(segOpts{mss: 100}), Config{MaxConnBytes: 4096})
	if st.Skipped["per-connection memory cap"] != 1 {
		t.Fatalf("skipped %v, want the per-connection cap", st.Skipped)
	}
	_, st = decodeFile(t, c.packets(segOpts{mss: 100}), Config{MaxTotalBytes: 4096})
	if st.Skipped["total memory cap"] != 1 {
		t.Fatalf("skipped %v, want the total cap", st.Skipped)
	}
	_, st = decodeFile(t, c.packets(segOpts{mss: 100}), Config{MaxFrame: 1000})
	if st.Skipped["frame larger than the frame limit"] != 1 {
		t.Fatalf("skipped %v, want the frame limit", st.Skipped)
	}
}

// twoConns: connection A (open before the capture) executes an id that
// connection B prepares later in the capture.
func twoConns(t *testing.T) []pcaptest.Packet {
	a := newConvo(t, 4, "")
	a.send(0, 1, &message.Execute{QueryId: []byte("id-x"), Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	a.send(1, 1, &message.VoidResult{})
	b := newConvo(t, 4, "")
	b.client = netip.MustParseAddrPort("[fd00::1]:40002")
	b.server = netip.MustParseAddrPort("[fd00::2]:9042")
	b.now = a.now.Add(time.Second)
	b.handshake()
	b.send(0, 1, &message.Prepare{Query: "DELETE FROM ks.t WHERE k = ?"})
	b.send(1, 1, &message.PreparedResult{PreparedQueryId: []byte("id-x"),
		VariablesMetadata: &message.VariablesMetadata{}, ResultMetadata: &message.RowsMetadata{}})
	return append(a.packets(segOpts{noSYN: true}), b.packets(segOpts{})...)
}

func TestPreparedLater(t *testing.T) {
	recs, st := decodeFile(t, twoConns(t), Config{})
	if len(recs) != 1 || recs[0].Query != "DELETE FROM ks.t WHERE k = ?" || recs[0].Session != 1 || st.Resolved["later"] != 1 {
		t.Fatalf("records %q, stats %+v", queries(recs), st)
	}
	// Without waiting (a held record cap of one, already full) and with a
	// first pass's statements instead.
	recs, st = decodeFile(t, twoConns(t), Config{Prepared: map[string]Prepared{"id-x": {Query: "Q", Keyspace: "k2"}}})
	if len(recs) != 1 || recs[0].Query != "Q" || recs[0].Keyspace != "k2" || st.Resolved["first pass"] != 1 {
		t.Fatalf("first pass: records %+v, stats %+v", recs, st)
	}
}

func TestResolveFromServer(t *testing.T) {
	a := newConvo(t, 4, "")
	a.send(0, 1, &message.Execute{QueryId: []byte("id-y"), Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	a.send(1, 1, &message.VoidResult{})
	a.send(0, 2, &message.Execute{QueryId: []byte("id-z"), Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	a.send(1, 2, &message.VoidResult{})
	var asked int
	resolve := func(_ context.Context, ids [][]byte) (map[string]Prepared, error) {
		asked = len(ids)
		return map[string]Prepared{"id-y": {Query: "SELECT * FROM ks.y"}}, nil
	}
	recs, st := decodeFile(t, a.packets(segOpts{noSYN: true}), Config{Resolve: resolve})
	if asked != 2 || len(recs) != 1 || recs[0].Query != "SELECT * FROM ks.y" || st.Unresolved != 1 || st.Resolved["server"] != 1 {
		t.Fatalf("asked %d, records %q, stats %+v", asked, queries(recs), st)
	}
	boom := errors.New("no server")
	d := NewDecoder(Config{Resolve: func(context.Context, [][]byte) (map[string]Prepared, error) { return nil, boom }}, nil)
	for _, p := range a.packets(segOpts{noSYN: true}) {
		seg, _ := pcap.DecodeTCP(p.Link, p.Data, 0)
		if err := d.Segment(p.Time, &seg); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Finish(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Finish: %v, want the resolver's error", err)
	}
}

// TestDamagedFile: every flipped byte of a capture file decodes without
// a panic, to an error or to counted problems.
func TestDamagedFile(t *testing.T) {
	c := newConvo(t, 5, "lz4")
	c.handshake()
	c.workload()
	file := pcaptest.Pcap(binary.BigEndian, false, c.packets(segOpts{mss: 200}))
	for i := 0; i < len(file); i += 3 {
		bad := append([]byte(nil), file...)
		bad[i] ^= 0x5A
		decodeBytes(bad)
	}
	for cut := 0; cut < len(file); cut += 7 {
		decodeBytes(file[:cut])
	}
}

// decodeBytes decodes a capture file, ignoring errors.
func decodeBytes(file []byte) {
	r, err := pcap.NewReader(bytes.NewReader(file))
	if err != nil {
		return
	}
	d := NewDecoder(Config{}, func(*capture.Record) error { return nil })
	for {
		p, err := r.Next()
		if err != nil {
			break
		}
		_ = d.Packet(p)
	}
	_ = d.Finish(context.Background())
}

// FuzzStream feeds arbitrary bytes as both directions of a connection
// (new or open before the capture), cut into segments.
func FuzzStream(f *testing.F) {
	c := newConvo(&testing.T{}, 4, "lz4")
	c.handshake()
	c.workload()
	var cl, sv []byte
	for _, ch := range c.chunks[:6] {
		if ch.dir == 0 {
			cl = append(cl, ch.data...)
		} else {
			sv = append(sv, ch.data...)
		}
	}
	f.Add(cl, sv, false, uint8(50))
	f.Add([]byte{5, 0, 0, 1, 7, 0, 0, 0, 0}, []byte{0x85, 0, 0, 1, 8, 0, 0, 0, 4, 0, 0, 0, 1}, true, uint8(3))
	f.Fuzz(func(t *testing.T, client, server []byte, mid bool, mss uint8) {
		if mss == 0 {
			mss = 1
		}
		c := rawConvo(t, client, server)
		recs, _ := decodeQuiet(c.packets(segOpts{noSYN: mid, mss: int(mss)}), Config{MaxConnBytes: 1 << 20})
		for _, r := range recs {
			if r.Session == 0 {
				t.Fatal("record without a session")
			}
		}
	})
}

func decodeQuiet(pkts []pcaptest.Packet, cfg Config) ([]*capture.Record, Stats) {
	var recs []*capture.Record
	d := NewDecoder(cfg, func(r *capture.Record) error { recs = append(recs, r); return nil })
	for _, p := range pkts {
		_ = d.Packet(pcap.Packet{Time: p.Time, Link: p.Link, Data: p.Data})
	}
	_ = d.Finish(context.Background())
	return recs, d.Stats()
}

var _ = io.EOF

// TestSnapshotCut: packets cut by tcpdump's snapshot length lose stream
// bytes: the connection is skipped with the reason.
func TestSnapshotCut(t *testing.T) {
	c := newConvo(t, 4, "")
	c.handshake()
	c.workload()
	pkts := c.packets(segOpts{})
	for i := range pkts {
		if len(pkts[i].Data) > 100 {
			pkts[i].Orig = len(pkts[i].Data)
			pkts[i].Data = pkts[i].Data[:100]
		}
	}
	_, st := decodeFile(t, pkts, Config{})
	if st.Skipped["packets cut by the snapshot length (capture with tcpdump -s 0)"] != 1 {
		t.Fatalf("skipped %v", st.Skipped)
	}
}

// TestConnectionTable: skipped connections are forgotten at their end,
// and a full table evicts the connection quiet the longest.
func TestConnectionTable(t *testing.T) {
	var pkts []pcaptest.Packet
	for i := range 5 {
		c := rawConvo(t, []byte{0x16, 0x03, 0x01, 0, 1, 0}, nil) // TLS: skipped
		c.client = netip.AddrPortFrom(c.client.Addr(), uint16(41000+i))
		c.now = c.now.Add(time.Duration(i) * time.Second)
		c.chunks[0].at, c.chunks[1].at = c.now, c.now
		pkts = append(pkts, c.packets(segOpts{})...)
	}
	d := NewDecoder(Config{MaxConns: 2}, nil)
	for _, p := range pkts {
		if err := d.Packet(pcap.Packet{Time: p.Time, Link: p.Link, Data: p.Data}); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.conns) != 0 {
		t.Fatalf("%d connections left after their FINs", len(d.conns))
	}
	if st := d.Stats(); st.Skipped["TLS (encrypted: not decodable)"] != 5 {
		t.Fatalf("skipped %v", st.Skipped)
	}
	// Connections that never end: the table stays within its cap.
	d = NewDecoder(Config{MaxConns: 2}, nil)
	for i := range 5 {
		c := newConvo(t, 4, "")
		c.client = netip.AddrPortFrom(c.client.Addr(), uint16(42000+i))
		c.now = c.now.Add(time.Duration(i) * time.Second)
		c.handshake()
		ps := c.packets(segOpts{})
		for _, p := range ps[:len(ps)-2] { // no FINs
			d.Packet(pcap.Packet{Time: p.Time, Link: p.Link, Data: p.Data})
		}
	}
	if st := d.Stats(); len(d.conns) != 2 || st.Skipped["evicted: idle while the connection table was full"] != 3 {
		t.Fatalf("%d connections, skipped %v", len(d.conns), st.Skipped)
	}
}
