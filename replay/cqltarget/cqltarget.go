// Package cqltarget is a replay target for any CQL endpoint (Cassandra,
// ScyllaDB, or another dohyo) reached with gocql. Bound values are sent as
// the captured bytes and rows are read back raw, so the digest is computed
// exactly as the proxy computed it at capture time.
package cqltarget

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/replay"
	"github.com/dohyo/dohyo/schema"
)

// Target replays through gocql sessions, one per keyspace (gocql has no
// per-query keyspace, so unqualified statements need a session bound to it).
type Target struct {
	cluster func(keyspace string) *gocql.ClusterConfig
	// consistency and serial replace the captured levels when set (the
	// URL's consistency= and serial_consistency=).
	consistency *gocql.Consistency
	serial      *gocql.SerialConsistency

	mu       sync.Mutex
	sessions map[string]*gocql.Session
}

var (
	_ replay.Target    = (*Target)(nil)
	_ replay.Versioner = (*Target)(nil)
)

// Version returns the endpoint's release_version from system.local.
func (t *Target) Version(ctx context.Context) (string, error) {
	s, err := t.session("")
	if err != nil {
		return "", err
	}
	var v string
	if err := s.Query("SELECT release_version FROM system.local").WithContext(ctx).Scan(&v); err != nil {
		return "", fmt.Errorf("cqltarget: version: %w", err)
	}
	return v, nil
}

// Open parses cql://host1,host2:port?consistency=QUORUM&serial_consistency=SERIAL&proto=4&timeout=10s
// (username/password in the URL's user info) and connects. consistency and
// serial_consistency replace the captured levels; without them each
// statement runs at its captured level.
func Open(ctx context.Context, raw string) (*Target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "cql" || u.Host == "" {
		return nil, fmt.Errorf("cqltarget: want cql://host[:port][,host...], got %q", replay.RedactURL(raw))
	}
	q := u.Query()
	proto, timeout := 4, 10*time.Second
	if v := q.Get("proto"); v != "" {
		if proto, err = strconv.Atoi(v); err != nil {
			return nil, fmt.Errorf("cqltarget: proto %q: %w", v, err)
		}
	}
	if v := q.Get("timeout"); v != "" {
		if timeout, err = time.ParseDuration(v); err != nil {
			return nil, fmt.Errorf("cqltarget: timeout %q: %w", v, err)
		}
	}
	hosts := strings.Split(u.Host, ",")
	t := &Target{sessions: map[string]*gocql.Session{}}
	if v := q.Get("consistency"); v != "" {
		c, err := gocql.ParseConsistencyWrapper(strings.ToUpper(v))
		if err != nil {
			return nil, fmt.Errorf("cqltarget: consistency %q: %w", v, err)
		}
		t.consistency = &c
	}
	if v := q.Get("serial_consistency"); v != "" {
		var sc gocql.SerialConsistency
		if err := sc.UnmarshalText([]byte(strings.ToUpper(v))); err != nil {
			return nil, fmt.Errorf("cqltarget: serial_consistency %q: %w", v, err)
		}
		t.serial = &sc
	}
	t.cluster = func(ks string) *gocql.ClusterConfig {
		c := gocql.NewCluster(hosts...)
		c.ProtoVersion = proto
		c.Timeout, c.ConnectTimeout = timeout, timeout
		c.Keyspace = ks
		if u.User != nil {
			pw, _ := u.User.Password()
			c.Authenticator = gocql.PasswordAuthenticator{Username: u.User.Username(), Password: pw}
		}
		return c
	}
	if _, err := t.session(""); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Target) session(ks string) (*gocql.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.sessions[ks]; s != nil {
		return s, nil
	}
	s, err := t.cluster(ks).CreateSession()
	if err != nil {
		return nil, fmt.Errorf("cqltarget: connect (keyspace %q): %w", ks, err)
	}
	t.sessions[ks] = s
	return s, nil
}

// Close closes every session.
func (t *Target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.sessions {
		s.Close()
	}
	t.sessions = map[string]*gocql.Session{}
	return nil
}

// ApplySchema runs each DDL statement, ignoring AlreadyExists.
func (t *Target) ApplySchema(ctx context.Context, ddl string) error {
	stmts, err := cql.ParseScript(ddl)
	if err != nil {
		return fmt.Errorf("cqltarget: schema: %w", err)
	}
	s, err := t.session("")
	if err != nil {
		return err
	}
	for _, p := range stmts {
		if err := s.Query(p.Text).WithContext(ctx).Exec(); err != nil && code(err) != bindings.CodeAlreadyExists {
			return fmt.Errorf("cqltarget: schema: %w", err)
		}
	}
	return nil
}

// args are a captured statement's values for gocql, sent as captured.
func args(vals []capture.Value, names []string) []any {
	bvals := make([]bindings.Value, len(vals))
	for i, v := range vals {
		bvals[i] = v.Binding()
	}
	return cassandra.GocqlArgs(bvals, names)
}

// Do executes op. Multi-page reads are re-paged with the captured page
// size (gocql's automatic paging is off so page boundaries are seen).
func (t *Target) Do(ctx context.Context, op *replay.Op) replay.Outcome {
	r := op.Recs[0]
	s, err := t.session(r.Keyspace)
	if err != nil {
		return fail(err)
	}
	if r.BatchSize > 0 {
		cl, serial := t.levels(r)
		b := s.NewBatch(gocql.BatchType(r.BatchType)).WithContext(ctx)
		b.Cons = cl
		if serial != 0 {
			b.SerialConsistency(serial)
		}
		if r.HasTimestamp {
			b.WithTimestamp(r.Timestamp)
		}
		for _, c := range op.Recs {
			b.Query(c.Query, args(c.Values, c.Names)...)
		}
		if err := s.ExecuteBatch(b); err != nil {
			return fail(err)
		}
		return replay.Outcome{}
	}
	var out replay.Outcome
	var state []byte
	cl, serial := t.levels(r)
	for page := 0; page < 100000; page++ {
		q := s.Query(r.Query, args(r.Values, r.Names)...).WithContext(ctx).
			Consistency(cl).PageSize(int(r.PageSize)).PageState(state)
		if serial != 0 {
			q.SerialConsistency(serial)
		}
		if r.HasTimestamp {
			q.WithTimestamp(r.Timestamp)
		}
		iter := q.Iter()
		cols := iter.Columns()
		var rows [][][]byte
		if len(cols) > 0 {
			for {
				cells := make([]cassandra.RawCell, len(cols))
				dest := make([]any, len(cols))
				for i := range cells {
					dest[i] = &cells[i]
				}
				if !iter.Scan(dest...) {
					break
				}
				row := make([][]byte, len(cols))
				for i, c := range cells {
					row[i] = c
				}
				rows = append(rows, row)
			}
		}
		next := iter.PageState()
		if err := iter.Close(); err != nil {
			f := fail(err)
			f.Pages, f.PageRows = out.Pages, out.PageRows
			return f
		}
		if len(cols) == 0 {
			return out
		}
		out.Pages = append(out.Pages, bindings.RowsDigest(rows))
		out.PageRows = append(out.PageRows, len(rows))
		if len(next) == 0 || !r.HasMore || r.PageSize <= 0 {
			return out
		}
		state = next
	}
	return out
}

// levels returns the consistency levels to run r at: the URL's, else the
// captured ones.
func (t *Target) levels(r *capture.Record) (gocql.Consistency, gocql.SerialConsistency) {
	cl, serial := gocql.Consistency(r.Consistency), gocql.SerialConsistency(r.SerialConsistency)
	if t.consistency != nil {
		cl = *t.consistency
	}
	if t.serial != nil {
		serial = *t.serial
	}
	return cl, serial
}

// DescribeServer implements bindings.ServerDescriber: the consistency
// levels, and for each of keyspaces found in system_schema its
// replication ("replication <ks>") and each table's compression
// ("compression <ks>.<table>"). The release version comes from Version.
func (t *Target) DescribeServer(ctx context.Context, keyspaces []string) (bindings.ServerDescription, error) {
	out, err := t.describe(ctx, keyspaces)
	return bindings.ServerDescription{Product: "CQL endpoint, release_version", Settings: out}, err
}

func (t *Target) describe(ctx context.Context, keyspaces []string) (map[string]string, error) {
	out := map[string]string{"consistency": "as captured", "serial_consistency": "as captured"}
	if t.consistency != nil {
		out["consistency"] = t.consistency.String()
	}
	if t.serial != nil {
		out["serial_consistency"] = t.serial.String()
	}
	s, err := t.session("")
	if err != nil {
		return out, err
	}
	for _, ks := range keyspaces {
		var repl map[string]string
		if err := s.Query("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).WithContext(ctx).Scan(&repl); err != nil {
			if errors.Is(err, gocql.ErrNotFound) {
				continue
			}
			return out, fmt.Errorf("cqltarget: describe %s: %w", ks, err)
		}
		out["replication "+ks] = schema.FormatReplication(repl)
		it := s.Query("SELECT table_name, compression FROM system_schema.tables WHERE keyspace_name = ?", ks).WithContext(ctx).Iter()
		var name string
		var comp map[string]string
		for it.Scan(&name, &comp) {
			out["compression "+ks+"."+name] = schema.FormatCompression(comp)
		}
		if err := it.Close(); err != nil {
			return out, fmt.Errorf("cqltarget: describe %s tables: %w", ks, err)
		}
	}
	return out, nil
}

func code(err error) bindings.ErrorCode {
	var re gocql.RequestError
	if errors.As(err, &re) {
		return bindings.ErrorCode(re.Code())
	}
	return bindings.CodeServerError
}

func fail(err error) replay.Outcome {
	return replay.Outcome{Err: true, Code: code(err), Msg: err.Error()}
}
