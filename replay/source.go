package replay

import (
	"hash/fnv"
	"io"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

// recordSource yields raw records (a *capture.Merger satisfies it).
type recordSource interface {
	Next() (*capture.Record, error)
}

// Shard selects a subset of sessions by hash: session s belongs to shard
// i of n when hash(node, session) mod n == i. The zero value selects all.
type Shard struct{ I, N int }

func (s Shard) keep(k SessionKey) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(k.Node))
	var b [8]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(k.Session >> (8 * i))
	}
	h.Write(b[:])
	return int(h.Sum64()%uint64(s.N)) == s.I
}

// opBuilder turns the merged record stream into ops:
//   - batch children (BatchSize > 0) of one session are grouped into one op;
//   - captured continuation pages (Paging) are not replayed: their digest and
//     rows are added to the first page's check, and the first page is
//     re-paged on the target to the end (captured paging states are never
//     sent), then compared page for page;
//   - reads whose captured result is nondeterministic are marked as noise.
type opBuilder struct {
	src   recordSource
	shard Shard
	next  int64

	batches map[SessionKey]*Op
	chains  map[chainKey]*readCheck // open multi-page reads
	race    raceTracker
	pending []*Op // completed ops not yet returned
}

// chainKey links a captured continuation page to its first page. Drivers
// send later pages on any connection, so the key is the node, the
// statement and its bound values, not the session.
type chainKey struct {
	node, query, values string
}

func valuesKey(vs []capture.Value) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteByte(byte(len(v.Bytes)))
		b.Write(v.Bytes)
		b.WriteByte(0xff)
	}
	return b.String()
}

// isSystem reports statements on the proxy's own virtual tables (driver
// metadata queries): they are answered by dohyo, not by a backend, and are
// not replayed.
func isSystem(r *capture.Record, table string) bool {
	ks := r.Keyspace
	if i := strings.IndexByte(table, '.'); i >= 0 {
		ks = table[:i]
	} else if table == "" {
		return false
	}
	ks = strings.ToLower(ks)
	return ks == "system" || strings.HasPrefix(ks, "system_")
}

func newOpBuilder(src recordSource, shard Shard) *opBuilder {
	return &opBuilder{src: src, shard: shard, batches: map[SessionKey]*Op{}, chains: map[chainKey]*readCheck{},
		race: raceTracker{writes: map[string][]interval{}, reads: map[string][]readInterval{}}}
}

// Next returns the next op, io.EOF at the end.
func (b *opBuilder) Next() (*Op, error) {
	for len(b.pending) == 0 {
		r, err := b.src.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, io.EOF
		}
		b.add(r)
	}
	op := b.pending[0]
	b.pending = b.pending[1:]
	return op, nil
}

func (b *opBuilder) emit(op *Op) {
	op.Index = b.next
	b.next++
	b.pending = append(b.pending, op)
}

func (b *opBuilder) add(r *capture.Record) {
	k := SessionKey{Node: r.Node, Session: r.Session}
	if !b.shard.keep(k) {
		return
	}
	table := tableOf(r.Fingerprint)
	if isSystem(r, table) {
		return
	}
	if r.BatchSize > 0 {
		op := b.batches[k]
		if op == nil || r.BatchIndex == 0 {
			if op != nil { // an incomplete batch: send what was captured
				b.emit(op)
			}
			op = &Op{Key: k, Time: r.Time, Check: &readCheck{Fingerprint: "BATCH", Query: r.Query, CapErr: r.Err, CapCode: r.ErrCode}}
			b.batches[k] = op
		}
		op.Recs = append(op.Recs, r)
		b.race.write(table, k, r)
		if len(op.Recs) >= r.BatchSize {
			delete(b.batches, k)
			b.emit(op)
		}
		return
	}
	ck := chainKey{r.Node, r.Query, valuesKey(r.Values)}
	if r.Paging {
		if c := b.chains[ck]; c != nil {
			c.ExpPages = append(c.ExpPages, r.Digest)
			c.ExpRows += r.Rows
			if r.Err {
				c.Noise = "a captured continuation page failed"
			}
			if !r.HasMore {
				delete(b.chains, ck)
			}
		}
		return // never replayed: the first page is re-paged on the target
	}
	delete(b.chains, ck)
	c := &readCheck{Fingerprint: r.Fingerprint, Query: r.Query, Values: r.Values, CapErr: r.Err, CapCode: r.ErrCode}
	if r.ResultKind == bindings.ResultRows && !r.Err {
		c.IsRead = true
		c.ExpPages = []uint64{r.Digest}
		c.ExpRows = r.Rows
		if r.HasMore {
			b.chains[ck] = c
		}
		c.Noise = nondeterministic(r.Fingerprint)
		b.race.read(table, k, r, c)
	} else if isWrite(r.Fingerprint) {
		b.race.write(table, k, r)
	}
	b.emit(&Op{Key: k, Time: r.Time, Recs: []*capture.Record{r}, Check: c, Barrier: isSchemaChange(r.Fingerprint)})
}

func isSchemaChange(fp string) bool {
	u := strings.ToUpper(strings.TrimSpace(fp))
	for _, p := range []string{"CREATE", "ALTER", "DROP", "TRUNCATE"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// nondeterministic names a function whose result differs on every run.
func nondeterministic(fp string) string {
	u := strings.ToUpper(fp)
	for _, f := range []string{"NOW(", "UUID(", "CURRENTTIMESTAMP(", "CURRENTDATE(", "CURRENTTIME(", "CURRENTTIMEUUID(", "TTL(", "WRITETIME(", "MINTIMEUUID(", "MAXTIMEUUID("} {
		if strings.Contains(strings.ReplaceAll(u, " (", "("), f) {
			return "uses " + strings.ToLower(strings.TrimSuffix(f, "(")) + "()"
		}
	}
	return ""
}

func isWrite(fp string) bool {
	u := strings.ToUpper(strings.TrimSpace(fp))
	for _, p := range []string{"INSERT", "UPDATE", "DELETE", "BEGIN", "TRUNCATE"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// tableOf finds the table a statement touches from its fingerprint (FROM,
// INTO or UPDATE followed by a name), lower-cased; "" if none.
func tableOf(fp string) string {
	f := strings.Fields(fp)
	for i := 0; i+1 < len(f); i++ {
		switch strings.ToUpper(f[i]) {
		case "FROM", "INTO", "UPDATE":
			return strings.ToLower(strings.Trim(f[i+1], `"`))
		}
	}
	return ""
}

// raceTracker marks a read as noise when a write to the same table from
// another session overlaps the read's captured [time, time+latency]
// window. Table granularity is conservative (it may call a clean read
// noise, never the reverse). Records arrive in time order, so entries that
// ended before the current record are dropped.
type raceTracker struct {
	writes map[string][]interval
	reads  map[string][]readInterval
}

type interval struct {
	from, to int64
	who      SessionKey
}

type readInterval struct {
	interval
	c *readCheck
}

func span(r *capture.Record) interval {
	return interval{from: r.Time, to: r.Time + int64(r.Latency)}
}

func (t *raceTracker) write(table string, k SessionKey, r *capture.Record) {
	if table == "" {
		return
	}
	w := span(r)
	w.who = k
	rs := prune(t.reads[table], r.Time)
	for _, ri := range rs {
		if ri.who != k && ri.to >= w.from && ri.c.Noise == "" {
			ri.c.Noise = "racing write from another session"
		}
	}
	t.reads[table] = rs
	t.writes[table] = append(pruneW(t.writes[table], r.Time), w)
}

func (t *raceTracker) read(table string, k SessionKey, r *capture.Record, c *readCheck) {
	if table == "" {
		return
	}
	ri := readInterval{interval: span(r), c: c}
	ri.who = k
	ws := pruneW(t.writes[table], r.Time)
	for _, w := range ws {
		if w.who != k && w.to >= ri.from && c.Noise == "" {
			c.Noise = "racing write from another session"
		}
	}
	t.writes[table] = ws
	t.reads[table] = append(prune(t.reads[table], r.Time), ri)
}

func prune(rs []readInterval, now int64) []readInterval {
	n := 0
	for _, x := range rs {
		if x.to >= now {
			rs[n] = x
			n++
		}
	}
	return rs[:n]
}

func pruneW(ws []interval, now int64) []interval {
	n := 0
	for _, x := range ws {
		if x.to >= now {
			ws[n] = x
			n++
		}
	}
	return ws[:n]
}
