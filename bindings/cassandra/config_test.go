package cassandra_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings/cassandra"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		url   string
		check func(cassandra.Config) bool
		err   string // substring of the expected error
	}{
		{url: "cassandra://127.0.0.1", check: func(c cassandra.Config) bool {
			return slices.Equal(c.Hosts, []string{"127.0.0.1:9042"}) && c.ProtoVersion == 4 && c.Consistency == ""
		}},
		{url: "cassandra://h1,h2:9043?consistency=quorum&proto=3&timeout=2s&user=u&password=p", check: func(c cassandra.Config) bool {
			return slices.Equal(c.Hosts, []string{"h1:9043", "h2:9043"}) && c.Consistency == "QUORUM" &&
				c.ProtoVersion == 3 && c.Timeout == 2*time.Second && c.User == "u" && c.Password == "p"
		}},
		{url: "cassandra://alice:s%40cret@[::1]:9000,10.0.0.2", check: func(c cassandra.Config) bool {
			return slices.Equal(c.Hosts, []string{"[::1]:9000", "10.0.0.2:9042"}) && c.User == "alice" && c.Password == "s@cret"
		}},
		{url: "cassandra://h?serial_consistency=LOCAL_SERIAL&schema_refresh=0s&max_sessions=4&native_conns=0&local_dc=dc1", check: func(c cassandra.Config) bool {
			return c.SerialConsistency == "LOCAL_SERIAL" && c.SchemaRefresh == 0 && c.MaxSessions == 4 && c.NativeConns == 0 && c.LocalDC == "dc1"
		}},
		{url: "hbase://h", err: "scheme"},
		{url: "cassandra://", err: "no host"},
		{url: "cassandra://h?consistency=MOST", err: "consistency"},
		{url: "cassandra://h?serial_consistency=QUORUM", err: "serial_consistency"},
		{url: "cassandra://h?proto=5", err: "proto"},
		{url: "cassandra://h?bogus=1", err: "unknown option"},
		{url: "cassandra://h:99999", err: "bad port"},
		{url: "cassandra://h/path", err: "path"},
		{url: "cassandra://h?timeout=soon", err: "timeout"},
		{url: "cassandra://h?password=secret", err: "user"},
	}
	for _, c := range cases {
		cfg, err := cassandra.ParseURL(c.url)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got error %v, want one containing %q", c.url, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: error shows the password: %v", c.url, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if !c.check(cfg) {
			t.Errorf("%s: got %+v", c.url, cfg)
		}
	}
	cfg, _ := cassandra.ParseURL("cassandra://u:topsecret@h")
	if s := cfg.String(); strings.Contains(s, "topsecret") {
		t.Errorf("String shows the password: %s", s)
	}
}
