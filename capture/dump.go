package capture

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dohyo/dohyo/cql"
)

// Dumper renders records as JSON lines (dohyo capture dump). Bound values
// are CQL literals (cql.FormatValue) when their types can be derived from
// the schema given to SetSchema, else 0x-hex blobs.
type Dumper struct {
	enc   *json.Encoder
	types map[string]*cql.Type // keyspace.table.column
	ddl   string
	stmts map[stmtKey]*markerTypes
}

// NewDumper returns a Dumper writing to w.
func NewDumper(w io.Writer) *Dumper {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Dumper{enc: enc, stmts: map[stmtKey]*markerTypes{}}
}

// DumpJSON writes one record as a JSON line, values as hex.
func DumpJSON(w io.Writer, rec *Record) error { return NewDumper(w).Dump(rec) }

// SetSchema gives the dumper column types: CREATE TABLE statements, as in a
// segment header (Reader.Schema). Statements it cannot parse are ignored.
func (d *Dumper) SetSchema(ddl string) {
	if ddl == d.ddl {
		return
	}
	d.ddl = ddl
	d.types = map[string]*cql.Type{}
	clear(d.stmts)
	stmts, err := cql.ParseScript(ddl)
	if err != nil { // parse what we can, statement by statement
		stmts = nil
		for _, part := range strings.Split(ddl, ";") {
			if p, err := cql.Parse(part); err == nil {
				stmts = append(stmts, p)
			}
		}
	}
	ks := "" // tables without a keyspace belong to the last USE
	for _, p := range stmts {
		switch st := p.Stmt.(type) {
		case *cql.Use:
			ks = st.Keyspace
		case *cql.CreateTable:
			tks := st.Keyspace
			if tks == "" {
				tks = ks
			}
			for _, c := range st.Columns {
				d.types[tks+"."+st.Name+"."+c.Name] = c.Type
			}
		}
	}
}

type jsonBatch struct {
	Index int    `json:"index"`
	Size  int    `json:"size"`
	Type  string `json:"type"`
}

type jsonRecord struct {
	Time          string     `json:"time"`
	Node          string     `json:"node"`
	Session       uint64     `json:"session"`
	Seq           uint64     `json:"seq"`
	Source        string     `json:"source"`
	Keyspace      string     `json:"keyspace,omitempty"`
	Statement     uint32     `json:"statement"`
	Query         string     `json:"query"`
	Fingerprint   string     `json:"fingerprint"`
	Prepared      bool       `json:"prepared,omitempty"`
	QueryRedacted bool       `json:"query_redacted,omitempty"`
	Values        []any      `json:"values,omitempty"`
	Names         []string   `json:"names,omitempty"`
	Consistency   string     `json:"consistency"`
	Serial        string     `json:"serial_consistency,omitempty"`
	PageSize      int32      `json:"page_size,omitempty"`
	Paging        bool       `json:"paging,omitempty"`
	PagingState   string     `json:"paging_state,omitempty"`
	Timestamp     *int64     `json:"timestamp,omitempty"`
	Batch         *jsonBatch `json:"batch,omitempty"`
	LatencyNS     int64      `json:"latency_ns"`
	Result        string     `json:"result,omitempty"`
	Error         string     `json:"error,omitempty"`
	Rows          int        `json:"rows"`
	Digest        string     `json:"digest,omitempty"`
	HasMore       bool       `json:"has_more,omitempty"`
}

var resultNames = [...]string{"void", "rows", "set_keyspace", "schema_change"}

var batchNames = [...]string{"LOGGED", "UNLOGGED", "COUNTER"}

// Dump writes one record as a JSON line.
func (d *Dumper) Dump(rec *Record) error {
	j := jsonRecord{
		Time: rec.At().Format(time.RFC3339Nano), Node: rec.Node, Session: rec.Session, Seq: rec.Seq,
		Source: rec.Source.String(), Keyspace: rec.Keyspace, Statement: rec.StatementID,
		Query: rec.Query, Fingerprint: rec.Fingerprint, Prepared: rec.Prepared,
		QueryRedacted: rec.QueryRedacted, Names: rec.Names, Consistency: rec.Consistency.String(),
		PageSize: rec.PageSize, Paging: rec.Paging, LatencyNS: int64(rec.Latency),
		Rows: rec.Rows, HasMore: rec.HasMore,
	}
	if rec.SerialConsistency != 0 {
		j.Serial = rec.SerialConsistency.String()
	}
	if rec.PagingState != nil {
		j.PagingState = "0x" + hex.EncodeToString(rec.PagingState)
	}
	if rec.HasTimestamp {
		ts := rec.Timestamp
		j.Timestamp = &ts
	}
	if rec.BatchSize != 0 {
		bt := "UNKNOWN"
		if int(rec.BatchType) < len(batchNames) {
			bt = batchNames[rec.BatchType]
		}
		j.Batch = &jsonBatch{Index: rec.BatchIndex, Size: rec.BatchSize, Type: bt}
	}
	if rec.Err {
		j.Error = rec.ErrCode.String()
	} else if int(rec.ResultKind) >= 0 && int(rec.ResultKind) < len(resultNames) {
		j.Result = resultNames[rec.ResultKind]
	}
	if rec.Digest != 0 {
		j.Digest = fmt.Sprintf("%016x", rec.Digest)
	}
	types := d.valueTypes(rec)
	for i, v := range rec.Values {
		var t *cql.Type
		if i < len(types) {
			t = types[i]
		}
		j.Values = append(j.Values, renderValue(v, t))
	}
	return d.enc.Encode(&j)
}

var blobType = cql.Scalar(cql.KindBlob)

func renderValue(v Value, t *cql.Type) any {
	switch {
	case v.Unset:
		return map[string]any{"unset": true}
	case v.Redacted == RedactDrop:
		return map[string]any{"redacted": "drop"}
	case v.Redacted == RedactLength:
		return map[string]any{"redacted": "length", "len": v.Len}
	case v.Redacted == RedactHash:
		return map[string]any{"redacted": "hash", "hmac": cql.FormatValue(blobType, v.Bytes)}
	case v.Bytes == nil:
		return nil
	case t == nil:
		return cql.FormatValue(blobType, v.Bytes)
	}
	return cql.FormatValue(t, v.Bytes)
}

// markerTypes is the dumper's cache entry for one statement.
type markerTypes struct {
	types []*cql.Type // by marker position; nil = unknown
	names []string    // marker names ("" for ?)
}

// valueTypes derives the type of each bound value of rec from the schema;
// nil entries are unknown.
func (d *Dumper) valueTypes(rec *Record) []*cql.Type {
	if len(d.types) == 0 || len(rec.Values) == 0 {
		return nil
	}
	key := stmtKey{keyspace: rec.Keyspace, text: rec.Query}
	mt, ok := d.stmts[key]
	if !ok {
		mt = &markerTypes{}
		if p, err := cql.Parse(rec.Query); err == nil {
			bm := mapBindings(p, rec.Keyspace)
			mt.types = make([]*cql.Type, len(bm.markers))
			mt.names = make([]string, len(bm.markers))
			for i, b := range bm.markers {
				mt.types[i] = d.bindingType(b)
				mt.names[i] = p.Markers[i].Name
			}
		}
		if len(d.stmts) >= 4096 {
			clear(d.stmts)
		}
		d.stmts[key] = mt
	}
	if rec.Names == nil {
		return mt.types
	}
	out := make([]*cql.Type, len(rec.Names))
	for i, n := range rec.Names {
		for j, m := range mt.names {
			if m != "" && strings.EqualFold(m, n) {
				out[i] = mt.types[j]
				break
			}
		}
	}
	return out
}

// bindingType is the CQL type of a value bound as b, nil when unknown.
func (d *Dumper) bindingType(b binding) *cql.Type {
	switch b.role {
	case roleTTL, roleLimit:
		return cql.Scalar(cql.KindInt)
	case roleTimestamp, roleToken:
		return cql.Scalar(cql.KindBigint)
	case roleJSON:
		return cql.Scalar(cql.KindText)
	}
	if b.untyped || len(b.columns) == 0 {
		return nil
	}
	col := func(name string) *cql.Type { return d.types[b.keyspace+"."+b.table+"."+name] }
	t := col(b.columns[0])
	if t == nil {
		return nil
	}
	switch b.role {
	case roleDirect:
		return t
	case roleInList:
		return cql.ListOf(t)
	case roleTuple:
		elems := make([]*cql.Type, len(b.columns))
		for i, c := range b.columns {
			if elems[i] = col(c); elems[i] == nil {
				return nil
			}
		}
		return cql.TupleOf(elems...)
	case roleKey:
		switch t.Kind {
		case cql.KindMap:
			return t.Elems[0]
		case cql.KindList:
			return cql.Scalar(cql.KindInt)
		}
	case roleMapKey:
		if t.Kind == cql.KindMap {
			return t.Elems[0]
		}
	case roleElem:
		switch t.Kind {
		case cql.KindList, cql.KindSet:
			return t.Elems[0]
		case cql.KindMap:
			return t.Elems[1]
		}
	}
	return nil
}
