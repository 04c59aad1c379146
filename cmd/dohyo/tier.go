package main

import (
	"log/slog"
	"net"
	"slices"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/tier"
)

// newMembership returns the membership of the tier (proxy/tier) over the
// default backend, or the first tiered backend by name
// (bindings.TierProvider: HBase); nil without one.
func newMembership(set *backendSet, coord *proxy.Coordinator, log *slog.Logger) *tier.Membership {
	names := []string{set.def}
	for n := range set.byName {
		names = append(names, n)
	}
	slices.Sort(names[1:])
	for _, n := range names {
		if tp, ok := bindings.Capability[bindings.TierProvider](set.byName[n]); ok {
			return tier.New(tier.Config{Registry: tp.TierRegistry(), Catalog: coord,
				Logger: log.With("tier", "membership")})
		}
	}
	return nil
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
