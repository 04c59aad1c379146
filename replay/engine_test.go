package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/capture"
)

// errRecords yields n records, then err.
type errRecords struct {
	n   int
	err error
}

func (e *errRecords) Next() (*capture.Record, error) {
	if e.n == 0 {
		return nil, e.err
	}
	e.n--
	return &capture.Record{Seq: uint64(e.n)}, nil
}

func TestReplayReadAhead(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		n       int
		err     error
		wantErr error
	}{
		{0, io.EOF, io.EOF},
		{1, io.EOF, io.EOF},
		{readAheadChunk, io.EOF, io.EOF},
		{3*readAheadChunk + 7, io.EOF, io.EOF},
		{readAheadChunk + 1, boom, boom},
		{5, nil, io.EOF}, // (nil, nil) ends a source too
	} {
		ra := newReadAhead(&errRecords{n: tc.n, err: tc.err})
		got := 0
		var err error
		for {
			var r *capture.Record
			if r, err = ra.Next(); err != nil {
				break
			}
			if want := uint64(tc.n - got - 1); r.Seq != want {
				t.Fatalf("n=%d: record %d has seq %d, want %d", tc.n, got, r.Seq, want)
			}
			got++
		}
		ra.Close()
		if got != tc.n || !errors.Is(err, tc.wantErr) {
			t.Errorf("n=%d: got %d records and %v, want %d and %v", tc.n, got, err, tc.n, tc.wantErr)
		}
		if _, err2 := ra.Next(); !errors.Is(err2, tc.wantErr) {
			t.Errorf("n=%d: Next after the end: %v, want %v again", tc.n, err2, tc.wantErr)
		}
	}
}

func TestReplayReadAheadCloseEarly(t *testing.T) {
	// Closing before the end stops the reader (which would otherwise block
	// on a full channel forever).
	ra := newReadAhead(&errRecords{n: 100 * readAheadChunk, err: io.EOF})
	if _, err := ra.Next(); err != nil {
		t.Fatal(err)
	}
	ra.Close()
}

func TestReplayRunKeyspaces(t *testing.T) {
	recs := []*capture.Record{
		{Time: 1, Session: 1, Keyspace: "ks", Query: "INSERT INTO t (k) VALUES (1)", Fingerprint: "INSERT INTO t (k) VALUES (?)"},
		{Time: 2, Session: 1, Keyspace: "ks", Query: "SELECT * FROM Other.t", Fingerprint: "SELECT * FROM Other.t"},
		{Time: 3, Session: 1, Keyspace: "ks", Query: "SELECT * FROM system.local", Fingerprint: "SELECT * FROM system.local"},
		{Time: 4, Session: 2, Keyspace: "ks", Query: "INSERT INTO t (k) VALUES (2)", Fingerprint: "INSERT INTO t (k) VALUES (?)"},
	}
	opts := Options{Schedule: ScheduleOptions{Mode: ModeMax},
		openRecords: func(context.Context) (recordSource, string, func() error, error) {
			return &memRecords{recs: append([]*capture.Record(nil), recs...)}, "", func() error { return nil }, nil
		}}
	run, err := Replay(context.Background(), opts, []NamedTarget{{"nop", nopTarget{}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(run.Keyspaces); got != "[ks other]" {
		t.Fatalf("keyspaces %s, want [ks other] (system tables are not replayed)", got)
	}
	if run.Targets[0].Ops != 3 {
		t.Fatalf("ops %d, want 3", run.Targets[0].Ops)
	}
}

func TestReplayTextStatesConditions(t *testing.T) {
	rep := &Report{Conditions: Conditions{Captures: []string{"cap/"}, Mode: "rate", Rate: 500, DohyoVersion: "v9",
		CaptureStart: time.Unix(0, 0), CaptureEnd: time.Unix(2, 0), Records: 10, Sessions: 2,
		Targets: []TargetInfo{{Name: "t1:hbase", URL: "hbase://zk:2181?salt=8", Server: "Apache HBase 2.6.4-hadoop3",
			Settings: map[string]string{"salt": "8", "compression": "NONE"}}}}}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# mode: rate, rate 500 ops/s\n", "# target t1:hbase: hbase://zk:2181?salt=8\n",
		"#   server: Apache HBase 2.6.4-hadoop3\n", "#   compression: NONE\n#   salt: 8\n", "(2s)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	var h bytes.Buffer
	if err := rep.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "server: <b>Apache HBase 2.6.4-hadoop3</b>") {
		t.Errorf("HTML lacks the server")
	}
}
