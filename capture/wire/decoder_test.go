package wire

import (
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/capture/pcap"
)

func TestWorkloadVersions(t *testing.T) {
	for _, v := range []primitive.ProtocolVersion{3, 4, 5} {
		for _, comp := range []string{"", "lz4", "snappy"} {
			if v == 5 && comp == "snappy" {
				continue
			}
			c := newConvo(t, v, comp)
			c.handshake()
			c.workload()
			for _, link := range []pcap.LinkType{pcap.LinkEthernet, pcap.LinkSLL2} {
				recs, st := decodeFile(t, c.packets(segOpts{link: link, mss: 60}), Config{})
				checkWorkload(t, recs, st)
				if st.SkippedTotal() != 0 || st.Unanswered != 0 || st.Malformed != 0 {
					t.Fatalf("v%d %q: stats %+v", v, comp, st)
				}
			}
		}
	}
}

func TestReorderedAndRetransmitted(t *testing.T) {
	for _, v := range []primitive.ProtocolVersion{4, 5} {
		c := newConvo(t, v, "lz4")
		c.handshake()
		c.workload()
		recs, st := decodeFile(t, c.packets(segOpts{mss: 40, reorder: true, retransmit: true}), Config{})
		checkWorkload(t, recs, st)
		if st.OutOfOrder == 0 || st.Retransmitted == 0 {
			t.Fatalf("v%d: out of order %d, retransmitted %d, want both counted", v, st.OutOfOrder, st.Retransmitted)
		}
	}
}

func TestLostSegment(t *testing.T) {
	c := newConvo(t, 4, "")
	c.handshake()
	c.workload()
	// Lose a data segment in the middle: decoding of the connection
	// stops there, with a counted reason; what came before is imported.
	recs, st := decodeFile(t, c.packets(segOpts{mss: 30, lose: []int{20}}), Config{})
	if st.Skipped["lost segment (a gap in the stream)"] != 1 {
		t.Fatalf("skipped %v, want one lost segment", st.Skipped)
	}
	if len(recs) >= len(wantQueries) {
		t.Fatalf("%d records after a lost segment", len(recs))
	}
	// Losing the last data segment (no later bytes prove it) counts at
	// the end, from the peer's acknowledgement.
	c2 := newConvo(t, 4, "")
	c2.handshake()
	c2.workload()
	all := c2.packets(segOpts{mss: 1000})
	n := 0
	for _, ch := range c2.chunks {
		n += (len(ch.data) + 999) / 1000
	}
	_, st = decodeFile(t, c2.packets(segOpts{mss: 1000, lose: []int{n - 1}}), Config{})
	if st.Skipped["lost segment (a gap in the stream)"] != 1 {
		t.Fatalf("lost last segment: skipped %v (of %d packets)", st.Skipped, len(all))
	}
}

func TestMidStream(t *testing.T) {
	for _, v := range []primitive.ProtocolVersion{4, 5} {
		for _, comp := range []string{"", "lz4"} {
			for _, skipBytes := range []int{0, 5} {
				c := newConvo(t, v, comp)
				c.handshake()
				c.workload()
				// The capture begins after the handshake, USE and the
				// query (6 chunks), possibly inside the PREPARE frame.
				recs, st := decodeFile(t, c.packets(segOpts{noSYN: true, skipChunks: 6, skipBytes: skipBytes, mss: 50}), Config{})
				if st.MidStream != 1 {
					t.Fatalf("v%d %q: mid-stream %d", v, comp, st.MidStream)
				}
				got := queries(recs)
				want := wantQueries[2:]
				if skipBytes > 0 {
					// The PREPARE was cut: its executes wait for an id
					// never prepared in the capture.
					want = []string{"UPDATE t SET v = 1 WHERE k = 1", "SELECT nope FROM t"}
					if st.Unresolved != 4 {
						t.Fatalf("v%d %q cut: unresolved %d, want 4", v, comp, st.Unresolved)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("v%d %q skip %d: %q, want %q; stats %+v", v, comp, skipBytes, got, want, st)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("v%d %q skip %d: %q, want %q", v, comp, skipBytes, got, want)
					}
				}
				// USE was not seen: the session keyspace is unknown.
				if recs[0].Keyspace != "" && skipBytes > 0 {
					t.Fatalf("keyspace %q before any USE", recs[0].Keyspace)
				}
			}
		}
	}
}
