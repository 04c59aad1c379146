package cqlserver

import (
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

func TestHandshakePerVersion(t *testing.T) {
	cases := []struct {
		name        string
		version     primitive.ProtocolVersion
		compression string
	}{
		{"v3", primitive.ProtocolVersion3, ""},
		{"v3 lz4", primitive.ProtocolVersion3, "lz4"},
		{"v3 snappy", primitive.ProtocolVersion3, "snappy"},
		{"v4", primitive.ProtocolVersion4, ""},
		{"v4 lz4", primitive.ProtocolVersion4, "lz4"},
		{"v4 snappy", primitive.ProtocolVersion4, "snappy"},
		{"v5", primitive.ProtocolVersion5, ""},
		{"v5 lz4", primitive.ProtocolVersion5, "lz4"},
	}
	ts := newTestServer(t, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.pipeClient(t, tc.version)
			f := c.do(&message.Options{})
			sup, ok := f.Body.Message.(*message.Supported)
			if !ok {
				t.Fatalf("OPTIONS: got %v", f.Body.Message)
			}
			if got := strings.Join(sup.Options["PROTOCOL_VERSIONS"], ","); got != "3/v3,4/v4,5/v5" {
				t.Errorf("PROTOCOL_VERSIONS = %s", got)
			}
			if got := strings.Join(sup.Options["COMPRESSION"], ","); got != "lz4,snappy" {
				t.Errorf("COMPRESSION = %s", got)
			}
			if got := strings.Join(sup.Options["CQL_VERSION"], ","); got != "3.4.7" {
				t.Errorf("CQL_VERSION = %s", got)
			}
			c.startup(tc.compression)
			// A query after the handshake travels in the negotiated framing
			// and compression, both ways; OPTIONS works after STARTUP too.
			r := c.rows("SELECT * FROM ks.t", nil)
			if len(r.Data) != 2 || string(r.Data[0][1]) != "one" {
				t.Errorf("rows = %v", r.Data)
			}
			if f := c.do(&message.Options{}); f.Header.Version != tc.version {
				t.Errorf("response version %v, want %v", f.Header.Version, tc.version)
			}
		})
	}
}
