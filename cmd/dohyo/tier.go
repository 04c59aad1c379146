package main

import (
	"context"
	"log/slog"
	"maps"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/cqlserver"
)

// Tier membership: dohyo instances over one HBase catalog are one cluster.
// Each heartbeats its advertised CQL address and loaded schema version into
// the shared catalog table and lists the others whose heartbeat is recent
// in system.peers (next to the static peer list).

const (
	heartbeatEvery = time.Second
	// deadAfterBeats missed heartbeats make an instance dead.
	deadAfterBeats = 3
)

// membership heartbeats this instance and tracks the live others.
type membership struct {
	store bindings.TierRegistry
	coord *proxy.Coordinator
	log   *slog.Logger
	now   func() time.Time
	every time.Duration
	live  atomic.Pointer[[]cqlserver.Member]
	// onChange, when set, is told of joins, leaves, deaths and returns
	// (cqlserver.NodeNew, NodeRemoved, NodeDown, NodeUp) of other members.
	onChange func(change, addr string)
	known    map[string]bool // addr -> live at the last beat; run's goroutine only
}

// newMembership returns the membership of the tier over the default
// backend, or the first tiered backend by name (bindings.TierProvider:
// HBase); nil without one.
func newMembership(set *backendSet, coord *proxy.Coordinator, log *slog.Logger) *membership {
	names := []string{set.def}
	for n := range set.byName {
		names = append(names, n)
	}
	slices.Sort(names[1:])
	for _, n := range names {
		if tp, ok := set.byName[n].(bindings.TierProvider); ok {
			return &membership{store: tp.TierRegistry(), coord: coord, log: log.With("tier", "membership"),
				now: time.Now, every: heartbeatEvery}
		}
	}
	return nil
}

// peers returns the live other members (for system.peers).
func (m *membership) peers() []cqlserver.Member {
	if p := m.live.Load(); p != nil {
		return *p
	}
	return nil
}

// run heartbeats as self (an advertised host:port; "" lists the others
// without registering) until ctx ends, then leaves the tier.
func (m *membership) run(ctx context.Context, self string) {
	t := time.NewTicker(m.every)
	defer t.Stop()
	failing := false
	for {
		err := m.beat(ctx, self)
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			m.log.Warn("tier heartbeat failing", "err", err)
			failing = true
		case err == nil && failing:
			m.log.Info("tier heartbeat recovered")
			failing = false
		}
		select {
		case <-ctx.Done():
			if self != "" {
				lctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				if err := m.store.Leave(lctx, self); err != nil {
					m.log.Warn("leaving the tier", "err", err)
				}
				cancel()
			}
			return
		case <-t.C:
		}
	}
}

// beat writes this instance's heartbeat and re-reads the live members.
func (m *membership) beat(ctx context.Context, self string) error {
	ctx, cancel := context.WithTimeout(ctx, m.every*deadAfterBeats)
	defer cancel()
	if self != "" {
		cat, err := m.coord.Catalog(ctx)
		if err != nil {
			return err
		}
		if err := m.store.Heartbeat(ctx, bindings.TierMember{Addr: self, SchemaVersion: cat.Version}); err != nil {
			return err
		}
	}
	all, err := m.store.Members(ctx)
	if err != nil {
		return err
	}
	now, deadAfter := m.now(), m.every*deadAfterBeats
	live := liveMembers(all, self, now, deadAfter)
	m.live.Store(&live)
	m.track(all, self, now, deadAfter)
	return nil
}

// track compares the members with the last beat's and reports the
// changes; the first listing is reported by nothing (clients read peers).
func (m *membership) track(all []bindings.TierMember, self string, now time.Time, deadAfter time.Duration) {
	cur := map[string]bool{}
	for _, mb := range all {
		if mb.Addr != self {
			cur[mb.Addr] = now.Sub(mb.Heartbeat) < deadAfter
		}
	}
	prev := m.known
	m.known = cur
	if prev == nil || m.onChange == nil {
		return
	}
	for _, addr := range slices.Sorted(maps.Keys(cur)) {
		was, seen := prev[addr]
		switch alive := cur[addr]; {
		case !seen && alive:
			m.onChange(cqlserver.NodeNew, addr)
		case seen && !was && alive:
			m.onChange(cqlserver.NodeUp, addr)
		case seen && was && !alive:
			m.onChange(cqlserver.NodeDown, addr)
		}
	}
	for _, addr := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := cur[addr]; !ok {
			m.onChange(cqlserver.NodeRemoved, addr)
		}
	}
}

// liveMembers keeps the members other than self whose last heartbeat is
// younger than deadAfter, sorted by address.
func liveMembers(all []bindings.TierMember, self string, now time.Time, deadAfter time.Duration) []cqlserver.Member {
	var out []cqlserver.Member
	for _, mb := range all {
		if mb.Addr == self || now.Sub(mb.Heartbeat) >= deadAfter {
			continue
		}
		out = append(out, cqlserver.Member{Addr: mb.Addr, SchemaVersion: mb.SchemaVersion})
	}
	slices.SortFunc(out, func(a, b cqlserver.Member) int {
		switch {
		case a.Addr < b.Addr:
			return -1
		case a.Addr > b.Addr:
			return 1
		}
		return 0
	})
	return out
}

// advertisedAddr is the CQL address other instances list this one under:
// advertise-addr, else the listener's address when it names a host ("":
// not known, the instance does not register).
func advertisedAddr(cfg Config, ln net.Addr) string {
	if cfg.AdvertiseAddr != "" {
		return cfg.AdvertiseAddr
	}
	ta, ok := ln.(*net.TCPAddr)
	if !ok || ta.IP.IsUnspecified() {
		return ""
	}
	return ta.String()
}
