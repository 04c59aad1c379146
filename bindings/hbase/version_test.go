package hbase

import (
	"context"
	"encoding/binary"
	"regexp"
	"testing"

	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/proto"
)

// rsZnode frames a RegionServerInfo as HBase writes it to ZooKeeper.
func rsZnode(t *testing.T, meta string, version string) []byte {
	t.Helper()
	info := &pb.RegionServerInfo{InfoPort: proto.Int32(-1)}
	if version != "" {
		info.VersionInfo = &pb.VersionInfo{Version: proto.String(version), Url: proto.String("u"), Revision: proto.String("r"),
			User: proto.String("x"), Date: proto.String("d"), SrcChecksum: proto.String("c")}
	}
	body, err := proto.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	out := []byte{0xFF}
	out = binary.BigEndian.AppendUint32(out, uint32(len(meta)))
	out = append(out, meta...)
	out = append(out, "PBUF"...)
	return append(out, body...)
}

func TestParseRSZnode(t *testing.T) {
	good := rsZnode(t, "regionserver:16020", "2.6.4-hadoop3")
	tests := []struct {
		name    string
		data    []byte
		want    string
		wantErr bool
	}{
		{"version", good, "2.6.4-hadoop3", false},
		{"empty metadata", rsZnode(t, "", "2.5.0"), "2.5.0", false},
		{"no version info", rsZnode(t, "m", ""), "", true},
		{"no magic byte", append([]byte{0}, good[1:]...), "", true},
		{"truncated", good[:8], "", true},
		{"metadata length past the end", append([]byte{0xFF, 0x7F, 0xFF, 0xFF, 0xFF}, good[5:]...), "", true},
		{"empty", nil, "", true},
	}
	for _, tt := range tests {
		got, err := parseRSZnode(tt.data)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestServerVersionLive(t *testing.T) {
	zk := testZK(t)
	v, err := zkServerVersion(context.Background(), zk, DefaultZKRoot)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(v) {
		t.Fatalf("got version %q, want a release number", v)
	}
}

func TestServerVersionUnreachable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := zkServerVersion(ctx, "127.0.0.1:1", DefaultZKRoot); err == nil {
		t.Fatalf("got %q, want an error", v)
	}
}
