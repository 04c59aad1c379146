package hbase

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/bindings"
)

// Tier membership: every dohyo instance serving one catalog heartbeats a
// row "<catalog>/member/<CQL address>" of the catalog table; the others
// list the rows whose heartbeat is recent as their peers.

const (
	memberPrefix  = "member/"
	memberAddrQ   = "addr"
	memberSchemaQ = "schema"
)

// Member is one dohyo instance of the tier, as it last heartbeat.
type Member = bindings.TierMember

// Heartbeat records m as alive now (HBase's clock).
func (s *Store) Heartbeat(ctx context.Context, m Member) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	p, err := hrpc.NewPut(octx, []byte(metaTable), metaRowKey(s.catalog, memberPrefix+m.Addr),
		map[string]map[string][]byte{family: {memberAddrQ: []byte(m.Addr), memberSchemaQ: []byte(m.SchemaVersion)}})
	if err != nil {
		return err
	}
	_, err = s.client.Put(p)
	return s.wrapErr(ctx, "heartbeat", err)
}

// Leave removes the member row of addr (a clean shutdown).
func (s *Store) Leave(ctx context.Context, addr string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	d, err := hrpc.NewDel(octx, []byte(metaTable), metaRowKey(s.catalog, memberPrefix+addr), nil)
	if err != nil {
		return err
	}
	_, err = s.client.Delete(d)
	return s.wrapErr(ctx, "leave", err)
}

// Members lists every member row, live or not (see Member.Heartbeat).
func (s *Store) Members(ctx context.Context) ([]Member, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	start := metaRowKey(s.catalog, memberPrefix)
	stop := append(start[:len(start)-1:len(start)-1], start[len(start)-1]+1)
	sc, err := hrpc.NewScanRange(octx, []byte(metaTable), start, stop,
		hrpc.Families(map[string][]string{family: {memberAddrQ, memberSchemaQ}}))
	if err != nil {
		return nil, err
	}
	scanner := s.client.Scan(sc)
	defer scanner.Close()
	var out []Member
	for {
		res, err := scanner.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, s.wrapErr(ctx, "members", err)
		}
		var m Member
		for _, c := range res.Cells {
			switch string(c.Qualifier) {
			case memberAddrQ:
				m.Addr = string(c.Value)
				if c.Timestamp != nil {
					m.Heartbeat = time.UnixMilli(int64(*c.Timestamp))
				}
			case memberSchemaQ:
				m.SchemaVersion = string(c.Value)
			}
		}
		if m.Addr != "" {
			out = append(out, m)
		}
	}
}
