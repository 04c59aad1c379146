package replay

import (
	"cmp"
	"hash/fnv"
	"io"
	"maps"
	"slices"
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
	fps     map[string]*fpInfo // classification per fingerprint
	ks      map[string]bool    // keyspaces used
	lastKS  string             // the last keyspace added to ks
	pending []*Op              // completed ops not yet returned
	head    int                // pending[head:] are not returned yet
}

// fpInfo is what the builder needs to know about a statement class; it is
// computed once per fingerprint (string scans are most of the per-record
// cost otherwise).
type fpInfo struct {
	table     string // lower-cased, "" if none
	tableKS   string // the table's keyspace qualifier, "" if unqualified
	write     bool
	schema    bool
	noise     string     // nondeterministic(fp)
	race      *tableRace // the race tracker's entry for table
	systemAny bool       // qualified by a system keyspace
}

func (b *opBuilder) info(fp string) *fpInfo {
	if in := b.fps[fp]; in != nil {
		return in
	}
	in := &fpInfo{table: tableOf(fp), write: isWrite(fp), schema: isSchemaChange(fp), noise: nondeterministic(fp)}
	if i := strings.IndexByte(in.table, '.'); i >= 0 {
		in.tableKS = in.table[:i]
		in.systemAny = isSystemKeyspace(in.tableKS)
	}
	if in.table != "" {
		in.race = b.race.table(in.table)
	}
	b.fps[fp] = in
	return in
}

// system reports a statement on the proxy's own virtual tables (driver
// metadata queries): they are answered by dohyo, not by a backend, and are
// not replayed.
func (in *fpInfo) system(r *capture.Record) bool {
	switch {
	case in.table == "":
		return false
	case in.tableKS != "":
		return in.systemAny
	}
	return isSystemKeyspace(r.Keyspace)
}

func isSystemKeyspace(ks string) bool {
	ks = strings.ToLower(ks)
	return ks == "system" || strings.HasPrefix(ks, "system_")
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

func newOpBuilder(src recordSource, shard Shard) *opBuilder {
	return &opBuilder{src: src, shard: shard, batches: map[SessionKey]*Op{}, chains: map[chainKey]*readCheck{},
		race: raceTracker{tables: map[string]*tableRace{}}, fps: map[string]*fpInfo{}, ks: map[string]bool{}}
}

// Next returns the next op, io.EOF at the end.
func (b *opBuilder) Next() (*Op, error) {
	for b.head == len(b.pending) {
		clear(b.pending)
		b.pending, b.head = b.pending[:0], 0
		r, err := b.src.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, io.EOF
		}
		b.add(r)
	}
	op := b.pending[b.head]
	b.head++
	return op, nil
}

// keyspaces lists the keyspaces of the ops built so far, sorted.
func (b *opBuilder) keyspaces() []string {
	return slices.Sorted(maps.Keys(b.ks))
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
	in := b.info(r.Fingerprint)
	if in.system(r) {
		return
	}
	if ks := cmp.Or(in.tableKS, r.Keyspace); ks != b.lastKS && ks != "" {
		b.lastKS = ks
		b.ks[strings.ToLower(strings.Trim(ks, `"`))] = true
	}
	if r.BatchSize > 0 {
		op := b.batches[k]
		if op == nil || r.BatchIndex == 0 {
			if op != nil { // an incomplete batch: send what was captured
				b.emit(op)
			}
			op = &Op{Key: k, Time: r.Time, class: "BATCH"}
			b.batches[k] = op
		}
		op.Recs = append(op.Recs, r)
		b.race.write(in.race, k, r)
		if len(op.Recs) >= r.BatchSize {
			delete(b.batches, k)
			b.emit(op)
		}
		return
	}
	// Chains link pages; the key (a copy of the values) is built only
	// when a page or an open chain can be involved.
	var ck chainKey
	if r.Paging || r.HasMore || len(b.chains) > 0 {
		ck = chainKey{r.Node, r.Query, valuesKey(r.Values)}
	}
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
	if len(b.chains) > 0 {
		delete(b.chains, ck)
	}
	op := &Op{Key: k, Time: r.Time, Barrier: in.schema, class: r.Fingerprint}
	op.one[0] = r
	op.Recs = op.one[:]
	if generatedRead(r) {
		// A generated workload's read (dohyo workload): no captured result,
		// compared between targets only.
		c := &readCheck{Fingerprint: r.Fingerprint, Query: r.Query, Values: r.Values, IsRead: true, NoCapture: true}
		c.ExpPages = c.exp1[:1]
		c.Noise = in.noise
		if strings.Contains(strings.ToUpper(r.Fingerprint), "TOKEN(") {
			c.Noise = "a generated scan (its range holds rows other sessions insert)"
		}
		op.Check = c
	} else if r.ResultKind == bindings.ResultRows && !r.Err {
		// Kept until the end of the run, apart from the op.
		c := &readCheck{Fingerprint: r.Fingerprint, Query: r.Query, Values: r.Values, CapErr: r.Err, CapCode: r.ErrCode}
		op.Check = c
		c.IsRead = true
		c.exp1[0] = r.Digest
		c.ExpPages = c.exp1[:1]
		c.ExpRows = r.Rows
		if r.HasMore {
			b.chains[ck] = c
		}
		c.Noise = in.noise
		b.race.read(in.race, k, r, c)
	} else if in.write {
		b.race.write(in.race, k, r)
	}
	b.emit(op)
}

// generatedRead is a SELECT recorded without a result: a generated
// workload's (a real capture records every read's rows).
func generatedRead(r *capture.Record) bool {
	return r.ResultKind == bindings.ResultVoid && !r.Err && len(r.Fingerprint) > 6 && strings.EqualFold(r.Fingerprint[:6], "SELECT")
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
	tables map[string]*tableRace
}

// tableRace holds one table's recent reads and writes.
type tableRace struct {
	writes []interval
	reads  []readInterval
}

func (t *raceTracker) table(name string) *tableRace {
	tr := t.tables[name]
	if tr == nil {
		tr = &tableRace{}
		t.tables[name] = tr
	}
	return tr
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

func (t *raceTracker) write(tr *tableRace, k SessionKey, r *capture.Record) {
	if tr == nil {
		return
	}
	w := span(r)
	w.who = k
	tr.reads = slices.DeleteFunc(tr.reads, func(x readInterval) bool { return x.to < r.Time })
	for _, ri := range tr.reads {
		if ri.who != k && ri.to >= w.from && ri.c.Noise == "" {
			ri.c.Noise = "racing write from another session"
		}
	}
	tr.writes = append(slices.DeleteFunc(tr.writes, func(x interval) bool { return x.to < r.Time }), w)
}

func (t *raceTracker) read(tr *tableRace, k SessionKey, r *capture.Record, c *readCheck) {
	if tr == nil {
		return
	}
	ri := readInterval{interval: span(r), c: c}
	ri.who = k
	tr.writes = slices.DeleteFunc(tr.writes, func(x interval) bool { return x.to < r.Time })
	for _, w := range tr.writes {
		if w.who != k && w.to >= ri.from && c.Noise == "" {
			c.Noise = "racing write from another session"
		}
	}
	tr.reads = append(slices.DeleteFunc(tr.reads, func(x readInterval) bool { return x.to < r.Time }), ri)
}

// readAhead decodes records on its own goroutine, in chunks, so decoding
// overlaps with building and dispatching ops (the dispatcher is the one
// serial path of a replay).
type readAhead struct {
	c     chan readChunk
	stop  chan struct{}
	done  chan struct{}
	cur   []*capture.Record
	err   error
	ended bool
}

type readChunk struct {
	recs []*capture.Record
	err  error // set on the last chunk
}

const readAheadChunk = 256

func newReadAhead(src recordSource) *readAhead {
	ra := &readAhead{c: make(chan readChunk, 4), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(ra.done)
		defer close(ra.c)
		for {
			recs := make([]*capture.Record, 0, readAheadChunk)
			var err error
			for len(recs) < readAheadChunk {
				var r *capture.Record
				if r, err = src.Next(); err != nil || r == nil {
					if err == nil {
						err = io.EOF
					}
					break
				}
				recs = append(recs, r)
			}
			select {
			case ra.c <- readChunk{recs, err}:
			case <-ra.stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ra
}

// Next returns the next record; io.EOF at the end.
func (ra *readAhead) Next() (*capture.Record, error) {
	for len(ra.cur) == 0 {
		if ra.ended {
			return nil, ra.err
		}
		ch, ok := <-ra.c
		if !ok {
			ra.ended, ra.err = true, io.EOF
			continue
		}
		ra.cur = ch.recs
		if ch.err != nil {
			ra.ended, ra.err = true, ch.err
		}
	}
	r := ra.cur[0]
	ra.cur[0] = nil
	ra.cur = ra.cur[1:]
	return r, nil
}

// Close stops the reading goroutine and waits for it, so the source can
// be closed.
func (ra *readAhead) Close() {
	close(ra.stop)
	<-ra.done
}
