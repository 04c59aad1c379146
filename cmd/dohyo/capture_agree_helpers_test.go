package main

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

// The comparisons of TestCaptureThreeWays: records side by side in
// their capture order, field by field, each disagreement a line.

// agreeField is one compared field of a record, rendered as text.
type agreeField struct {
	name string
	get  func(*capture.Record) string
}

var (
	fieldQuery       = agreeField{"text", func(r *capture.Record) string { return r.Query }}
	fieldFingerprint = agreeField{"fingerprint", func(r *capture.Record) string { return r.Fingerprint }}
	fieldKeyspace    = agreeField{"keyspace", func(r *capture.Record) string { return r.Keyspace }}
	fieldPrepared    = agreeField{"prepared", func(r *capture.Record) string { return fmt.Sprint(r.Prepared) }}
	fieldValues      = agreeField{"values", func(r *capture.Record) string { return valuesText(r.Values, r.Names) }}
	fieldConsistency = agreeField{"consistency", func(r *capture.Record) string { return r.Consistency.String() }}
	fieldSerial      = agreeField{"serial consistency", func(r *capture.Record) string { return r.SerialConsistency.String() }}
	fieldPageSize    = agreeField{"page size", func(r *capture.Record) string { return fmt.Sprint(r.PageSize) }}
	fieldPaging      = agreeField{"paging state", func(r *capture.Record) string {
		return fmt.Sprintf("%v %x", r.Paging, r.PagingState)
	}}
	fieldTimestamp = agreeField{"timestamp", func(r *capture.Record) string {
		if !r.HasTimestamp {
			return "none"
		}
		return fmt.Sprint(r.Timestamp)
	}}
	fieldBatch = agreeField{"batch", func(r *capture.Record) string {
		return fmt.Sprintf("%d of %d, type %d", r.BatchIndex, r.BatchSize, r.BatchType)
	}}
	fieldOutcome = agreeField{"outcome", func(r *capture.Record) string {
		if r.Err {
			return fmt.Sprintf("error %v", r.ErrCode)
		}
		return fmt.Sprintf("%v, %d rows, digest %x, more %v", r.ResultKind, r.Rows, r.Digest, r.HasMore)
	}}
)

// valuesText renders bound values: null, unset, redacted or hex bytes.
func valuesText(vs []capture.Value, names []string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		switch {
		case v.Unset:
			parts[i] = "unset"
		case v.Redacted != capture.NotRedacted:
			parts[i] = "redacted:" + v.Redacted.String()
		case v.Bytes == nil:
			parts[i] = "null"
		default:
			parts[i] = hex.EncodeToString(v.Bytes)
		}
		if names != nil {
			parts[i] = names[i] + "=" + parts[i]
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// disagreements collects lines, at most maxDisagreements of them.
type disagreements struct {
	lines   []string
	dropped int
}

const maxDisagreements = 30

func (d *disagreements) add(format string, args ...any) {
	if len(d.lines) >= maxDisagreements {
		d.dropped++
		return
	}
	d.lines = append(d.lines, fmt.Sprintf(format, args...))
}

func (d *disagreements) result() []string {
	if d.dropped > 0 {
		d.lines = append(d.lines, fmt.Sprintf("... and %d more", d.dropped))
	}
	return d.lines
}

// compareFields compares a and b record by record over fields, less
// those skip says not to compare for a pair.
func compareFields(d *disagreements, a, b []*capture.Record, fields []agreeField, skip func(name string, a, b *capture.Record) bool) {
	if len(a) != len(b) {
		d.add("%d records against %d", len(a), len(b))
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		for _, f := range fields {
			if skip != nil && skip(f.name, a[i], b[i]) {
				continue
			}
			if x, y := f.get(a[i]), f.get(b[i]); x != y {
				d.add("record %d (%q): %s %q against %q", i, a[i].Query, f.name, x, y)
			}
		}
	}
}

// agreeServedWire compares dohyo's capture with the pcap's import: every
// field but latency, and the sessions: the records pair up session with
// session one to one, each session's records in the same order.
func agreeServedWire(served, wired []*capture.Record) []string {
	d := &disagreements{}
	compareFields(d, served, wired, []agreeField{
		fieldQuery, fieldFingerprint, fieldKeyspace, fieldPrepared, fieldValues, fieldConsistency,
		fieldSerial, fieldPageSize, fieldPaging, fieldTimestamp, fieldBatch, fieldOutcome,
	}, nil)
	toWire, toServed := map[uint64]uint64{}, map[uint64]uint64{}
	for i := 0; i < len(served) && i < len(wired); i++ {
		s, w := served[i].Session, wired[i].Session
		if m, ok := toWire[s]; ok && m != w {
			d.add("record %d (%q): dohyo session %d is pcap session %d here and %d before", i, served[i].Query, s, w, m)
		}
		if m, ok := toServed[w]; ok && m != s {
			d.add("record %d (%q): pcap session %d is dohyo session %d here and %d before", i, served[i].Query, w, s, m)
		}
		toWire[s], toServed[w] = w, s
	}
	inOrder(d, "dohyo", served)
	inOrder(d, "pcap", wired)
	return d.result()
}

// inOrder checks that each session's records come in sequence order.
func inOrder(d *disagreements, source string, recs []*capture.Record) {
	last := map[uint64]uint64{}
	for i, r := range recs {
		if prev, ok := last[r.Session]; ok && r.Seq <= prev {
			d.add("%s record %d (%q): session %d sequence %d after %d", source, i, r.Query, r.Session, r.Seq, prev)
		}
		last[r.Session] = r.Seq
	}
}

// agreeServedLog compares dohyo's capture, less its erred records, with
// the full query log's import over what the log records: text, keyspace,
// values, consistency, serial consistency (SERIAL and none alike: the
// log leaves SERIAL out), page size, paging state, the client's timestamp
// (where the client sent one; else the log's is Cassandra's) and batch.
// Keyspace: the log's is that of the relay's connection to Cassandra.
func agreeServedLog(served, logged []*capture.Record) []string {
	var ok []*capture.Record
	for _, r := range served {
		if !r.Err {
			ok = append(ok, r)
		}
	}
	serial := fieldSerial
	serial.get = func(r *capture.Record) string {
		if r.SerialConsistency == bindings.Serial {
			return bindings.Consistency(0).String()
		}
		return r.SerialConsistency.String()
	}
	d := &disagreements{}
	compareFields(d, ok, logged, []agreeField{
		fieldQuery, fieldFingerprint, fieldKeyspace, fieldValues, fieldConsistency,
		serial, fieldPageSize, fieldPaging, fieldTimestamp, fieldBatch,
	}, func(name string, a, b *capture.Record) bool {
		switch name {
		case fieldTimestamp.name:
			return !a.HasTimestamp
		case fieldKeyspace.name:
			// The log has the keyspace of Cassandra's connection, and
			// the relay sends an EXECUTE on one without any: a
			// prepared statement's names were resolved when prepared.
			return a.Prepared && a.BatchSize == 0 && b.Keyspace == ""
		}
		return false
	})
	return d.result()
}

// filter keeps the workload's records: its statement texts, each naming
// the run's keyspace.
func (w *agreeWorkload) filter(recs []*capture.Record) []*capture.Record {
	var out []*capture.Record
	for _, r := range recs {
		if w.texts[r.Query] && strings.Contains(r.Query, w.ks) {
			out = append(out, r)
		}
	}
	return out
}

func countErrs(recs []*capture.Record) int {
	n := 0
	for _, r := range recs {
		if r.Err {
			n++
		}
	}
	return n
}

// TestAgreeComparisons: the comparisons report what differs, and only
// that: a value, a session swap, an order, an error the log lacks, a
// SERIAL the log leaves out.
func TestAgreeComparisons(t *testing.T) {
	rec := func(session, seq uint64, q string, v byte) *capture.Record {
		return &capture.Record{Session: session, Seq: seq, Query: q, Keyspace: "ks", Prepared: true,
			Values: []capture.Value{{Bytes: []byte{v}}}, Consistency: bindings.One,
			Timestamp: int64(seq), HasTimestamp: true}
	}
	served := []*capture.Record{rec(1, 1, "a", 1), rec(2, 1, "b", 2), rec(1, 2, "c", 3)}
	same := []*capture.Record{rec(7, 1, "a", 1), rec(8, 1, "b", 2), rec(7, 2, "c", 3)}
	if d := agreeServedWire(served, same); len(d) != 0 {
		t.Errorf("equal captures: %q", d)
	}
	changed := []*capture.Record{rec(7, 1, "a", 1), rec(8, 1, "b", 9), rec(8, 2, "c", 3)}
	if d := agreeServedWire(served, changed); len(d) != 3 {
		// the value, and session 1 paired with 7 then 8, 8 with 2 then 1
		t.Errorf("a value and a session changed: %d lines %q, want 3", len(d), d)
	}
	reordered := []*capture.Record{rec(7, 1, "a", 1), rec(8, 1, "b", 2), rec(7, 2, "c", 3)}
	reordered[0].Seq, reordered[2].Seq = 2, 1
	if d := agreeServedWire(served, reordered); len(d) != 1 {
		t.Errorf("a session's order changed: %d lines %q, want 1", len(d), d)
	}

	erred := rec(1, 3, "d", 4)
	erred.Err = true
	serial := rec(2, 2, "e", 5)
	serial.SerialConsistency = bindings.Serial
	logged := []*capture.Record{rec(0, 0, "a", 1), rec(0, 0, "b", 2), rec(0, 0, "c", 3), rec(0, 0, "e", 5)}
	for _, r := range logged {
		r.Timestamp = map[string]int64{"a": 1, "b": 1, "c": 2, "e": 2}[r.Query]
	}
	if d := agreeServedLog(append(served, erred, serial), logged); len(d) != 0 {
		t.Errorf("the log's view of the same: %q", d)
	}
	logged[3].Consistency = bindings.Quorum
	if d := agreeServedLog(append(served, erred, serial), logged); len(d) != 1 {
		t.Errorf("a consistency changed: %d lines %q, want 1", len(d), d)
	}
}
