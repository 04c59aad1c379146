package main

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/capture/pcap"
	"github.com/dohyo/dohyo/capture/pcap/pcaptest"
)

// tinyPcap is a capture of one v4 connection: STARTUP, READY, and n
// queries each answered with two rows.
func tinyPcap(t *testing.T, n int) []byte {
	t.Helper()
	cl, sv := netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("127.0.0.1:9042")
	seq := [2]uint32{100, 900}
	ends := [2]netip.AddrPort{cl, sv}
	at := time.Unix(1_700_000_000, 0)
	var pkts []pcaptest.Packet
	seg := func(dir int, flags uint8, payload []byte) {
		pkts = append(pkts, pcaptest.Packet{Time: at, Link: pcap.LinkEthernet,
			Data: pcaptest.TCP(pcap.LinkEthernet, ends[dir], ends[1-dir], seq[dir], seq[1-dir], flags, payload)})
		seq[dir] += uint32(len(payload))
		at = at.Add(time.Millisecond)
	}
	send := func(dir int, stream int16, m message.Message) {
		var b bytes.Buffer
		if err := frame.NewCodec().EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, stream, m), &b); err != nil {
			t.Fatal(err)
		}
		seg(dir, pcap.FlagACK, b.Bytes())
	}
	seg(0, pcap.FlagSYN, nil)
	seq[0]++
	seg(1, pcap.FlagSYN|pcap.FlagACK, nil)
	seq[1]++
	send(0, 0, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	send(1, 0, &message.Ready{})
	col := &message.ColumnMetadata{Keyspace: "ks", Table: "t", Name: "v", Type: datatype.Int}
	for i := range n {
		send(0, int16(i+1), &message.Query{Query: "SELECT v FROM ks.t", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
		send(1, int16(i+1), &message.RowsResult{Metadata: &message.RowsMetadata{ColumnCount: 1, Columns: []*message.ColumnMetadata{col}},
			Data: message.RowSet{{{0, 0, 0, 1}}, {{0, 0, 0, 2}}}})
	}
	return pcaptest.Pcap(binary.LittleEndian, false, pkts)
}

func TestCaptureImportPcap(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "tiny.pcap")
	data := tinyPcap(t, 3)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "out")
	out, err := runCLI(t, "", "capture", "import", "--pcap", file, "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	recs := readRecords(t, dir)
	if len(recs) != 3 || recs[0].Query != "SELECT v FROM ks.t" || recs[0].Rows != 2 || recs[2].Seq != 3 {
		t.Fatalf("records %+v\n%s", recs, out)
	}
	for _, want := range []string{"imported 3 records", "requests     3 answered"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The segments are ordinary captures.
	if out, err := runCLI(t, "", "capture", "verify", dir); err != nil || !strings.Contains(out, "3 records") {
		t.Fatalf("capture verify: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "", "capture", "inspect", dir); err != nil || !strings.Contains(out, "SELECT v FROM ks.t") {
		t.Fatalf("capture inspect: %v\n%s", err, out)
	}

	// A file cut short (tcpdump killed): a warning, and the requests
	// answered before the cut.
	cut := filepath.Join(tmp, "cut.pcap")
	os.WriteFile(cut, data[:len(data)-10], 0o600)
	out, err = runCLI(t, "", "capture", "import", "--pcap", cut, "--out", filepath.Join(tmp, "cut"))
	if err != nil || !strings.Contains(out, "imported 2 records") || !strings.Contains(out, "warning: ") || !strings.Contains(out, "truncated") {
		t.Fatalf("cut file: %v\n%s", err, out)
	}

	// Not a capture file.
	junk := filepath.Join(tmp, "junk.pcap")
	os.WriteFile(junk, []byte("this is not a capture"), 0o600)
	if out, err = runCLI(t, "", "capture", "import", "--pcap", junk, "--out", filepath.Join(tmp, "junk")); err == nil || !strings.Contains(err.Error(), "not a pcap") {
		t.Fatalf("junk file: %v\n%s", err, out)
	}

	// Another port: nothing decoded, and the summary says why.
	out, err = runCLI(t, "", "capture", "import", "--pcap", file, "--port", "19042", "--out", filepath.Join(tmp, "other"))
	if err != nil || !strings.Contains(out, "imported 0 records") || !strings.Contains(out, "other ports 10") {
		t.Fatalf("other port: %v\n%s", err, out)
	}

	if _, err := runCLI(t, "", "capture", "import", "--out", dir); err == nil || !strings.Contains(err.Error(), "--pcap") {
		t.Fatalf("no source: %v", err)
	}
}
