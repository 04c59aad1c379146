package tier

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy/cqlserver"
)

const (
	heartbeatEvery = time.Second
	// deadAfterBeats missed heartbeats make an instance dead.
	deadAfterBeats = 3
)

// Config configures a Membership.
type Config struct {
	// Registry keeps the members' heartbeats in the shared store.
	Registry bindings.TierRegistry
	// Catalog is this instance's schema (the coordinator): its version is
	// heartbeat with the address.
	Catalog bindings.CatalogSource
	Logger  *slog.Logger
}

// Membership heartbeats this instance and tracks the live others.
type Membership struct {
	store   bindings.TierRegistry
	catalog bindings.CatalogSource
	log     *slog.Logger
	now     func() time.Time
	every   time.Duration
	live    atomic.Pointer[[]cqlserver.Member]
	// onChange, when set, is told of joins, leaves, deaths and returns
	// (cqlserver.NodeNew, NodeRemoved, NodeDown, NodeUp) of other members.
	onChange func(change, addr string)
	known    map[string]bool // addr -> live at the last beat; Run's goroutine only
}

// New returns the membership over cfg.Registry, heartbeating every second.
func New(cfg Config) *Membership {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Membership{store: cfg.Registry, catalog: cfg.Catalog, log: log,
		now: time.Now, every: heartbeatEvery}
}

// OnChange registers fn to be told of the other members' joins, leaves,
// deaths and returns (cqlserver.NodeNew, NodeRemoved, NodeDown, NodeUp).
// Call it before Run.
func (m *Membership) OnChange(fn func(change, addr string)) { m.onChange = fn }

// Peers returns the live other members (for system.peers).
func (m *Membership) Peers() []cqlserver.Member {
	if p := m.live.Load(); p != nil {
		return *p
	}
	return nil
}

// Run heartbeats as self (an advertised host:port; "" lists the others
// without registering) until ctx ends, then leaves the tier.
func (m *Membership) Run(ctx context.Context, self string) {
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
func (m *Membership) beat(ctx context.Context, self string) error {
	ctx, cancel := context.WithTimeout(ctx, m.every*deadAfterBeats)
	defer cancel()
	if self != "" {
		cat, err := m.catalog.Catalog(ctx)
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
func (m *Membership) track(all []bindings.TierMember, self string, now time.Time, deadAfter time.Duration) {
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
