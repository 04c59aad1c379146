package cqltarget

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

func TestOpenRejectsBadURLs(t *testing.T) {
	for _, raw := range []string{
		"cql://127.0.0.1:1?consistency=SOMETIMES",
		"cql://127.0.0.1:1?serial_consistency=QUORUM",
		"cql://127.0.0.1:1?proto=x",
		"http://127.0.0.1:9042",
		"cql://",
	} {
		// Each is refused before any connection is tried (port 1 would fail
		// with a different, connection error).
		_, err := Open(context.Background(), raw)
		if err == nil || strings.Contains(err.Error(), "connect") {
			t.Errorf("%s: error %v, want a URL error", raw, err)
		}
	}
}

func TestLevels(t *testing.T) {
	q, s := gocql.Quorum, gocql.LocalSerial
	r := &capture.Record{Consistency: bindings.One, SerialConsistency: bindings.Serial}
	for _, tc := range []struct {
		t          *Target
		wantC      gocql.Consistency
		wantSerial gocql.SerialConsistency
	}{
		{&Target{}, gocql.One, gocql.Serial},
		{&Target{consistency: &q}, gocql.Quorum, gocql.Serial},
		{&Target{consistency: &q, serial: &s}, gocql.Quorum, gocql.LocalSerial},
	} {
		if c, sc := tc.t.levels(r); c != tc.wantC || sc != tc.wantSerial {
			t.Errorf("levels %v %v, want %v %v", c, sc, tc.wantC, tc.wantSerial)
		}
	}
}

func TestDescribeLive(t *testing.T) {
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" {
		t.Skip("DOHYO_TEST_CASSANDRA not set")
	}
	ctx := context.Background()
	tg, err := Open(ctx, "cql://"+addr+"?consistency=quorum")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ks := fmt.Sprintf("cqlt%d", time.Now().UnixNano())
	if err := tg.ApplySchema(ctx, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"+
		"CREATE TABLE "+ks+".t (k int PRIMARY KEY) WITH compression = {'enabled': 'false'};"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		s, _ := tg.session("")
		_ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	}()
	d, err := tg.DescribeServer(ctx, []string{ks, "no_such_keyspace"})
	got := d.Settings
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"consistency": "QUORUM", "serial_consistency": "as captured",
		"replication " + ks: "SimpleStrategy replication_factor=1", "compression " + ks + ".t": "off"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
