package fql

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// refEntry is one line of it/fql/dump.sh (Chronicle Queue's own reader).
type refEntry struct {
	Version      int64       `json:"version"`
	Type         string      `json:"type"`
	Start        int64       `json:"start"`
	Protocol     int64       `json:"protocol"`
	Options      string      `json:"options"`
	GeneratedTS  int64       `json:"generated_ts"`
	GeneratedNow int64       `json:"generated_now"`
	Keyspace     *string     `json:"keyspace"`
	Query        *string     `json:"query"`
	BatchType    *string     `json:"batch_type"`
	Queries      []string    `json:"queries"`
	Values       [][]*string `json:"values"` // nil: a null value
}

// TestReferenceReader compares the Go reader, entry by entry, with a
// dump of the same logs by Chronicle Queue's own API from Cassandra's
// jars (it/fql/dump.sh: Java 17 and Maven). It runs when
// DOHYO_TEST_FQL_REF is set (1, or the path of dump.sh); under CI it is
// required.
func TestReferenceReader(t *testing.T) {
	script := os.Getenv("DOHYO_TEST_FQL_REF")
	if script == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_FQL_REF is not set")
		}
		t.Skip("DOHYO_TEST_FQL_REF not set (1, or the path of it/fql/dump.sh)")
	}
	if script == "1" {
		abs, err := filepath.Abs("../../it/fql/dump.sh")
		if err != nil {
			t.Fatal(err)
		}
		script = abs
	}
	for _, c := range []struct{ dir, roll string }{{cqlshDir, "HOURLY"}, {mixDir, "HOURLY"}, {pythonDir, "HOURLY"}, {rolledDir, "MINUTELY"}} {
		dir := c.dir
		t.Run(filepath.Base(dir), func(t *testing.T) {
			got, st := readAll(t, dir)
			if st.SkippedTotal() != 0 {
				t.Fatalf("skipped %v", st.Skipped)
			}
			want := referenceDump(t, script, dir, c.roll)
			if len(got) != len(want) {
				t.Fatalf("Go reader: %d entries, Chronicle: %d", len(got), len(want))
			}
			for i := range want {
				if g := asRef(got[i]); !reflect.DeepEqual(g, want[i]) {
					gj, _ := json.Marshal(g)
					wj, _ := json.Marshal(want[i])
					t.Errorf("entry %d differs:\ngo        %s\nchronicle %s", i, gj, wj)
				}
			}
		})
	}
}

// referenceDump runs dump.sh on a copy of dir (Chronicle writes its
// metadata file next to the cycle files).
func referenceDump(t *testing.T, script, dir, roll string) []refEntry {
	t.Helper()
	tmp := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(dir, "*.cq4"))
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(tmp, filepath.Base(f)), mustRead(t, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, tmp, roll)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	var es []refEntry
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("{")) {
			continue // Chronicle's log lines
		}
		var e refEntry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		es = append(es, e)
	}
	return es
}

// asRef renders a Go entry as the reference dump does.
func asRef(e *Entry) refEntry {
	r := refEntry{
		Version: e.Version, Type: e.Type, Start: e.StartTime, Protocol: int64(e.ProtocolVersion),
		Options: hex.EncodeToString(encodeOptions(e)), GeneratedTS: e.GeneratedTimestamp, GeneratedNow: e.GeneratedNowInSeconds,
	}
	if r.GeneratedNow == noValue {
		r.GeneratedNow = math.MinInt32 // what the log holds
	}
	if e.Keyspace != "" {
		r.Keyspace = &e.Keyspace
	}
	switch e.Type {
	case TypeSingle:
		r.Query = &e.Query
	case TypeBatch:
		r.BatchType = &e.BatchType
		r.Queries = e.Queries
		r.Values = make([][]*string, len(e.Values))
		for i, vs := range e.Values {
			r.Values[i] = make([]*string, len(vs))
			for j, v := range vs {
				if v.Bytes != nil {
					h := hex.EncodeToString(v.Bytes)
					r.Values[i][j] = &h
				}
			}
		}
	}
	return r
}

// encodeOptions re-encodes decoded options as Cassandra's codec does, so
// a round trip through decodeOptions is compared byte for byte.
func encodeOptions(e *Entry) []byte {
	o := e.Options
	v := e.ProtocolVersion
	var b []byte
	b = append(b, byte(o.Consistency>>8), byte(o.Consistency))
	if v >= 5 {
		b = append(b, byte(o.Flags>>24), byte(o.Flags>>16), byte(o.Flags>>8), byte(o.Flags))
	} else {
		b = append(b, byte(o.Flags))
	}
	be32 := func(x int32) { b = append(b, byte(x>>24), byte(x>>16), byte(x>>8), byte(x)) }
	if o.Flags&0x01 != 0 {
		b = append(b, byte(len(o.Values)>>8), byte(len(o.Values)))
		for _, x := range o.Values {
			switch {
			case x.Unset:
				be32(-2)
			case x.Bytes == nil:
				be32(-1)
			default:
				be32(int32(len(x.Bytes)))
				b = append(b, x.Bytes...)
			}
		}
	}
	if o.Flags&0x04 != 0 {
		be32(o.PageSize)
	}
	if o.Flags&0x08 != 0 {
		be32(int32(len(o.PagingState)))
		b = append(b, o.PagingState...)
	}
	if o.Flags&0x10 != 0 {
		b = append(b, byte(o.SerialConsistency>>8), byte(o.SerialConsistency))
	}
	if o.Flags&0x20 != 0 {
		for i := 7; i >= 0; i-- {
			b = append(b, byte(o.Timestamp>>(8*i)))
		}
	}
	if v >= 5 && o.Flags&0x80 != 0 {
		b = append(b, byte(len(o.Keyspace)>>8), byte(len(o.Keyspace)))
		b = append(b, o.Keyspace...)
	}
	if v >= 5 && o.Flags&0x100 != 0 {
		be32(o.NowInSeconds)
	}
	return b
}
