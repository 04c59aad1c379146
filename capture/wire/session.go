package wire

import (
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql/wire"
)

// Pairing requests with responses by stream id, and records.

// frame handles one decoded frame of a direction.
func (c *conn) frame(t time.Time, dir int, hd wire.Header, body []byte) error {
	c.d.stats.Frames++
	if dir == toServer {
		c.request(t, hd, body)
		return nil
	}
	return c.response(t, hd, body)
}

// maxPending bounds the requests awaiting answers on a connection (a
// stream id is 16 bits).
const maxPending = 1 << 15

func (c *conn) request(t time.Time, hd wire.Header, body []byte) {
	var req *request
	switch hd.Op {
	case wire.OpStartup:
		c.startup(hd, body)
		req = &request{op: hd.Op}
	case wire.OpQuery, wire.OpPrepare, wire.OpExecute, wire.OpBatch:
		var err error
		if req, err = decodeRequest(hd.Op, hd.Version, body); err != nil {
			c.d.stats.Malformed++
			req = &request{op: 0} // answered, but not recorded
		}
	default:
		req = &request{op: hd.Op}
	}
	if c.state != stateActive {
		return
	}
	req.time = t
	if old, ok := c.pending[hd.Stream]; ok {
		c.d.stats.Unanswered++ // the stream was reused: its answer was not captured
		c.reqBytes -= old.size
	} else if len(c.pending) >= maxPending {
		c.d.stats.Unanswered++
		return
	}
	c.pending[hd.Stream] = req
	c.reqBytes += req.size
}

// startup reads STARTUP's options: the version and the compression.
func (c *conn) startup(hd wire.Header, body []byte) {
	r := wire.NewReader(body)
	opts := r.StringMap()
	if r.Err() != nil {
		c.d.stats.Malformed++
		return
	}
	c.version, c.started = hd.Version, true
	name := opts["COMPRESSION"]
	c.compression, c.codec = name, nil
	if name == "" {
		return
	}
	codec, ok := wire.BodyCodecFor(name)
	if !ok || hd.Version >= 5 && name != "lz4" {
		c.fail("unsupported compression " + trimMsg(name))
		return
	}
	c.codec = codec
}

func (c *conn) response(t time.Time, hd wire.Header, body []byte) error {
	if hd.Op == wire.OpEvent {
		return nil
	}
	req, ok := c.pending[hd.Stream]
	if !ok {
		c.d.stats.Unmatched++
		return nil
	}
	delete(c.pending, hd.Stream)
	c.reqBytes -= req.size
	out := outcomeOf(hd, body)
	if out.kind == bindings.ResultSetKeyspace && !out.err {
		c.keyspace = out.keyspace
	}
	switch req.op {
	case wire.OpPrepare:
		if id, _ := wire.PreparedResult(hd, body); id != nil {
			ks := req.keyspace
			if ks == "" {
				ks = c.keyspace
			}
			return c.d.prepare(id, Prepared{Query: req.query, Keyspace: ks})
		}
	case wire.OpQuery, wire.OpExecute, wire.OpBatch:
		c.d.stats.Requests++
		return c.records(t, req, &out)
	}
	return nil
}

// outcome is what a response says about its request.
type outcome struct {
	kind     bindings.ResultKind
	rows     int
	digest   uint64
	more     bool
	err      bool
	code     bindings.ErrorCode
	keyspace string // SetKeyspace
}

func outcomeOf(hd wire.Header, body []byte) outcome {
	r := wire.ResponseBody(hd, body)
	switch hd.Op {
	case wire.OpError:
		e, err := wire.DecodeError(r.Rest())
		if err != nil {
			return outcome{err: true, code: bindings.CodeProtocolError}
		}
		return outcome{err: true, code: bindings.ErrorCode(e.Code)}
	case wire.OpResult:
	default:
		return outcome{err: true, code: bindings.CodeProtocolError}
	}
	switch r.Int() {
	case wire.ResultRows:
		n, digest, more, err := wire.RowsDigest(&r)
		if err != nil {
			return outcome{kind: bindings.ResultRows}
		}
		return outcome{kind: bindings.ResultRows, rows: n, digest: digest, more: more}
	case wire.ResultSetKeyspace:
		return outcome{kind: bindings.ResultSetKeyspace, keyspace: r.Str()}
	case wire.ResultSchemaChange:
		return outcome{kind: bindings.ResultSchemaChange}
	}
	return outcome{kind: bindings.ResultVoid}
}

// records builds the records of an answered request (one per batch
// child) and emits them, or holds those whose prepared id is unknown.
func (c *conn) records(t time.Time, req *request, out *outcome) error {
	latency := max(t.Sub(req.time), 0)
	ks := req.keyspace
	if ks == "" {
		ks = c.keyspace
	}
	base := capture.Record{
		Time:              req.time.UnixNano(),
		Session:           c.id,
		Source:            bindings.SourceCQL,
		Keyspace:          ks,
		Consistency:       req.params.consistency,
		SerialConsistency: req.params.serial,
		PageSize:          req.params.pageSize,
		Paging:            req.params.paging,
		PagingState:       req.params.pagingState,
		Timestamp:         req.params.timestamp,
		HasTimestamp:      req.params.hasTimestamp,
		Latency:           latency,
		ResultKind:        out.kind,
		Err:               out.err,
		ErrCode:           out.code,
		Rows:              out.rows,
		Digest:            out.digest,
		HasMore:           out.more,
	}
	if out.err {
		base.ResultKind = 0
	}
	if req.op != wire.OpBatch {
		rec := base
		rec.Query, rec.Values, rec.Names = req.query, req.params.values, req.params.names
		return c.emit(&rec, req.op == wire.OpExecute, req.id)
	}
	for i, ch := range req.batch.children {
		rec := base
		rec.Query, rec.Values = ch.query, ch.values
		rec.BatchIndex, rec.BatchSize, rec.BatchType = i, len(req.batch.children), req.batch.typ
		if err := c.emit(&rec, ch.id != nil, ch.id); err != nil {
			return err
		}
	}
	return nil
}

// emit numbers a record in its session and hands it on; an EXECUTE's
// text comes from its prepared id (held when the id is not known yet).
func (c *conn) emit(rec *capture.Record, prepared bool, id []byte) error {
	c.seq++
	rec.Seq = c.seq
	rec.Prepared = prepared
	if !prepared {
		return c.d.emit(rec)
	}
	p, src, ok := c.d.lookup(id)
	if !ok {
		c.d.hold(id, rec)
		return nil
	}
	c.d.stats.Resolved[src]++
	fill(rec, p)
	return c.d.emit(rec)
}
