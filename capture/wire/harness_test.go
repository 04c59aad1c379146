package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/capture/pcap"
	"github.com/dohyo/dohyo/capture/pcap/pcaptest"
	"github.com/dohyo/dohyo/cql/wire"
)

// A synthesized CQL conversation: frames both ways, encoded with the
// native-protocol library (and dohyo's compression and segment codecs),
// cut into TCP segments and written to a pcap file.

type convo struct {
	t        *testing.T
	version  primitive.ProtocolVersion
	compress string // "", "lz4", "snappy"
	framed   [2]bool
	client   netip.AddrPort
	server   netip.AddrPort
	now      time.Time
	// chunks of bytes per direction with their time
	chunks []chunk
}

type chunk struct {
	dir  int
	at   time.Time
	data []byte
}

func newConvo(t *testing.T, v primitive.ProtocolVersion, compress string) *convo {
	return &convo{t: t, version: v, compress: compress,
		client: netip.MustParseAddrPort("10.0.0.1:40001"), server: netip.MustParseAddrPort("10.0.0.2:9042"),
		now: time.Unix(1_700_000_000, 0)}
}

// send encodes a message as a frame in direction dir.
func (c *convo) send(dir int, stream int16, msg message.Message) {
	c.t.Helper()
	var buf bytes.Buffer
	f := frame.NewFrame(c.version, stream, msg)
	if err := frame.NewCodec().EncodeFrame(f, &buf); err != nil {
		c.t.Fatal(err)
	}
	b := buf.Bytes()
	op := b[4]
	if c.compress != "" && c.version < 5 && op != wire.OpStartup && op != wire.OpOptions && !(dir == 1 && (op == wire.OpReady || op == wire.OpSupported)) {
		codec, _ := wire.BodyCodecFor(c.compress)
		body := codec.Compress(nil, b[wire.HeaderLen:])
		b = append(append([]byte(nil), b[:wire.HeaderLen]...), body...)
		b[1] |= wire.FlagCompressed
		binary.BigEndian.PutUint32(b[5:], uint32(len(body)))
	}
	if c.framed[dir] {
		var out bytes.Buffer
		bw := bufio.NewWriter(&out)
		sw := &wire.SegmentWriter{W: bw, Compressed: c.compress == "lz4"}
		if err := sw.Add(b); err != nil {
			c.t.Fatal(err)
		}
		if err := sw.Flush(); err != nil {
			c.t.Fatal(err)
		}
		bw.Flush()
		b = out.Bytes()
	}
	c.now = c.now.Add(time.Millisecond)
	c.chunks = append(c.chunks, chunk{dir: dir, at: c.now, data: b})
	if c.version == 5 && (dir == 0 && op == wire.OpStartup || dir == 1 && op == wire.OpReady) {
		c.framed[dir] = true
	}
}

func (c *convo) handshake() {
	opts := map[string]string{"CQL_VERSION": "3.0.0"}
	if c.compress != "" {
		opts["COMPRESSION"] = c.compress
	}
	c.send(0, 0, &message.Startup{Options: opts})
	c.send(1, 0, &message.Ready{})
}

func val(b []byte) *primitive.Value { return primitive.NewValue(b) }

func intCol(name string) *message.ColumnMetadata {
	return &message.ColumnMetadata{Keyspace: "ks", Table: "t", Name: name, Type: datatype.Int}
}

func rows(n int) *message.RowsResult {
	r := &message.RowsResult{Metadata: &message.RowsMetadata{ColumnCount: 1, Columns: []*message.ColumnMetadata{intCol("v")}}}
	for i := range n {
		r.Data = append(r.Data, message.Row{{0, 0, 0, byte(i)}})
	}
	return r
}

// workload sends a mix: USE, a query with rows, a prepare and executes,
// a batch, an error.
func (c *convo) workload() {
	c.send(0, 1, &message.Query{Query: "USE ks", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	c.send(1, 1, &message.SetKeyspaceResult{Keyspace: "ks"})
	c.send(0, 2, &message.Query{Query: "SELECT v FROM t WHERE k = ?", Options: &message.QueryOptions{
		Consistency: primitive.ConsistencyLevelQuorum, PositionalValues: []*primitive.Value{val([]byte{0, 0, 0, 7})}}})
	c.send(1, 2, rows(3))
	c.send(0, 3, &message.Prepare{Query: "INSERT INTO t (k, v) VALUES (?, ?)"})
	c.send(1, 3, &message.PreparedResult{PreparedQueryId: []byte("id-insert"), ResultMetadataId: []byte("m"),
		VariablesMetadata: &message.VariablesMetadata{Columns: []*message.ColumnMetadata{intCol("k"), intCol("v")}},
		ResultMetadata:    &message.RowsMetadata{ColumnCount: 0}})
	for i := range 3 {
		c.send(0, int16(4+i), &message.Execute{QueryId: []byte("id-insert"), ResultMetadataId: []byte("m"),
			Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne,
				PositionalValues: []*primitive.Value{val([]byte{0, 0, 0, byte(i)}), val([]byte{0, 0, 0, 1})}}})
	}
	for i := range 3 { // answered out of order
		c.send(1, int16(6-i), &message.VoidResult{})
	}
	c.send(0, 9, &message.Batch{Type: primitive.BatchTypeLogged, Consistency: primitive.ConsistencyLevelOne,
		Children: []*message.BatchChild{
			{Query: "UPDATE t SET v = 1 WHERE k = 1"},
			{Id: []byte("id-insert"), Values: []*primitive.Value{val([]byte{0, 0, 0, 9}), val([]byte{0, 0, 0, 9})}},
		}})
	c.send(1, 9, &message.VoidResult{})
	c.send(0, 10, &message.Query{Query: "SELECT nope FROM t", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	c.send(1, 10, &message.Invalid{ErrorMessage: "Undefined column name nope"})
}

// wantQueries are the records workload produces, in emission order.
var wantQueries = []string{
	"USE ks", "SELECT v FROM t WHERE k = ?",
	"INSERT INTO t (k, v) VALUES (?, ?)", "INSERT INTO t (k, v) VALUES (?, ?)", "INSERT INTO t (k, v) VALUES (?, ?)",
	"UPDATE t SET v = 1 WHERE k = 1", "INSERT INTO t (k, v) VALUES (?, ?)",
	"SELECT nope FROM t",
}

// segOpts shape the TCP segments.
type segOpts struct {
	mss        int
	noSYN      bool  // the connection was open before the capture
	skipChunks int   // mid-stream: chunks before the capture began
	skipBytes  int   // ... and bytes of the next chunk
	reorder    bool  // swap adjacent client segments
	retransmit bool  // send every segment twice
	lose       []int // indexes of data segments not captured
	link       pcap.LinkType
}

// packets turns the conversation into captured packets.
func (c *convo) packets(o segOpts) []pcaptest.Packet {
	if o.mss == 0 {
		o.mss = 1400
	}
	if o.link == 0 {
		o.link = pcap.LinkEthernet
	}
	seq := [2]uint32{1000, 5000}
	ends := [2]netip.AddrPort{c.client, c.server}
	var out []pcaptest.Packet
	add := func(at time.Time, dir int, s, ack uint32, flags uint8, payload []byte) {
		out = append(out, pcaptest.Packet{Time: at, Link: o.link,
			Data: pcaptest.TCP(o.link, ends[dir], ends[1-dir], s, ack, flags, payload)})
	}
	t0 := c.now.Add(-time.Hour)
	if !o.noSYN {
		add(t0, 0, seq[0], 0, pcap.FlagSYN, nil)
		add(t0, 1, seq[1], seq[0]+1, pcap.FlagSYN|pcap.FlagACK, nil)
		seq[0]++
		seq[1]++
	}
	n := 0
	lost := map[int]bool{}
	for _, i := range o.lose {
		lost[i] = true
	}
	var held *pcaptest.Packet
	for ci, ch := range c.chunks {
		data := ch.data
		if ci < o.skipChunks {
			seq[ch.dir] += uint32(len(data))
			continue
		}
		if ci == o.skipChunks && o.skipBytes > 0 {
			seq[ch.dir] += uint32(o.skipBytes)
			data = data[o.skipBytes:]
		}
		for len(data) > 0 {
			k := min(len(data), o.mss)
			p := pcaptest.Packet{Time: ch.at, Link: o.link, Data: pcaptest.TCP(o.link, ends[ch.dir], ends[1-ch.dir],
				seq[ch.dir], seq[1-ch.dir], pcap.FlagACK, data[:k])}
			seq[ch.dir] += uint32(k)
			data = data[k:]
			n++
			if lost[n-1] {
				continue
			}
			if o.reorder && ch.dir == 0 {
				if held == nil {
					held = &p
					continue
				}
				out = append(out, p, *held)
				held = nil
				continue
			}
			if held != nil {
				out = append(out, *held)
				held = nil
			}
			out = append(out, p)
			if o.retransmit {
				out = append(out, p)
			}
		}
		// The peer acknowledges what it received.
		add(ch.at, 1-ch.dir, seq[1-ch.dir], seq[ch.dir], pcap.FlagACK, nil)
	}
	if held != nil {
		out = append(out, *held)
	}
	add(c.now, 0, seq[0], seq[1], pcap.FlagFIN|pcap.FlagACK, nil)
	add(c.now, 1, seq[1], seq[0]+1, pcap.FlagFIN|pcap.FlagACK, nil)
	return out
}

// decodeFile writes the packets as a pcap file, reads it back and
// decodes it.
func decodeFile(t *testing.T, pkts []pcaptest.Packet, cfg Config) ([]*capture.Record, Stats) {
	t.Helper()
	file := pcaptest.Pcap(binary.LittleEndian, true, pkts)
	r, err := pcap.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*capture.Record
	d := NewDecoder(cfg, func(r *capture.Record) error { recs = append(recs, r); return nil })
	for {
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Packet(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	return recs, d.Stats()
}

func queries(recs []*capture.Record) []string {
	var q []string
	for _, r := range recs {
		q = append(q, r.Query)
	}
	return q
}

func checkWorkload(t *testing.T, recs []*capture.Record, st Stats) {
	t.Helper()
	got := queries(recs)
	if len(got) != len(wantQueries) {
		t.Fatalf("queries %q\nwant %q\nstats %+v", got, wantQueries, st)
	}
	for i := range got {
		if got[i] != wantQueries[i] {
			t.Fatalf("record %d: %q, want %q (all %q)", i, got[i], wantQueries[i], got)
		}
	}
	sel := recs[1]
	if sel.Rows != 3 || sel.ResultKind != bindings.ResultRows || sel.Keyspace != "ks" || sel.Consistency != bindings.Quorum ||
		len(sel.Values) != 1 || !bytes.Equal(sel.Values[0].Bytes, []byte{0, 0, 0, 7}) {
		t.Fatalf("select record %+v", sel)
	}
	want := bindings.RowsDigest([][][]byte{{{0, 0, 0, 0}}, {{0, 0, 0, 1}}, {{0, 0, 0, 2}}})
	if sel.Digest != want {
		t.Fatalf("digest %x, want %x", sel.Digest, want)
	}
	if sel.Latency != time.Millisecond {
		t.Fatalf("latency %v, want 1ms", sel.Latency)
	}
	ex := recs[2]
	if !ex.Prepared || ex.Keyspace != "ks" || len(ex.Values) != 2 || ex.ResultKind != bindings.ResultVoid {
		t.Fatalf("execute record %+v", ex)
	}
	b0, b1 := recs[5], recs[6]
	if b0.BatchSize != 2 || b0.BatchIndex != 0 || b1.BatchIndex != 1 || !b1.Prepared || b0.Prepared {
		t.Fatalf("batch records %+v %+v", b0, b1)
	}
	last := recs[7]
	if !last.Err || last.ErrCode != bindings.ErrorCode(primitive.ErrorCodeInvalid) {
		t.Fatalf("error record %+v", last)
	}
	for i, r := range recs {
		if r.Session != 1 || r.Seq != uint64(i+1) {
			t.Fatalf("record %d: session %d seq %d", i, r.Session, r.Seq)
		}
	}
}
