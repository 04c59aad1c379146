package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra/relay"
	"github.com/dohyo/dohyo/metrics"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/cqlserver"
)

// openRelays starts a raw-frame relay (DESIGN D2) for every relayable
// backend (bindings.Relayable: Cassandra): the CQL server relays those keyspaces' frames, while the
// gocql-based backend serves GraphQL, replay and the schema catalog.
// Schema changes seen by a relay (a relayed DDL's result, or an event
// from the cluster) refresh that backend's catalog and are pushed to
// dohyo's clients when the keyspace is routed to that backend.
func openRelays(ctx context.Context, set *backendSet, coord *proxy.Coordinator, log *slog.Logger) (map[string]*relay.Relay, error) {
	relays := map[string]*relay.Relay{}
	for name, b := range set.byName {
		rb, ok := bindings.Capability[bindings.Relayable](b)
		if !ok {
			continue
		}
		t := rb.RelayTarget()
		onChange := func(ch *bindings.SchemaChange) {
			if ci, ok := bindings.Capability[bindings.CatalogInvalidator](b); ok {
				ci.InvalidateCatalog()
			}
			if ch == nil || coord.Route(ch.Keyspace).Name != name {
				return
			}
			coord.NotifySchemaChange(ch)
		}
		rl, err := relay.New(ctx, relay.Config{
			Hosts:           t.Hosts,
			ConnsPerNode:    t.ConnsPerNode,
			ConnectTimeout:  t.ConnectTimeout,
			Heartbeat:       t.Heartbeat,
			SuspectAfter:    t.SuspectAfter,
			SchemaAgreement: t.SchemaAgreement,
			User:            t.User,
			Password:        t.Password,
			OnSchemaChange:  onChange,
			Logger:          log.With("relay", metrics.BackendLabel(name)),
		})
		if err != nil {
			return nil, errors.Join(fmt.Errorf("relay to %s: %w", metrics.BackendLabel(name), err), closeRelays(relays))
		}
		relays[name] = rl
	}
	return relays, nil
}

// frameRelayers are the relays as the CQL server's last hops.
func frameRelayers(relays map[string]*relay.Relay) map[string]bindings.FrameRelayer {
	if len(relays) == 0 {
		return nil
	}
	out := make(map[string]bindings.FrameRelayer, len(relays))
	for name, rl := range relays {
		out[name] = rl
	}
	return out
}

func closeRelays(relays map[string]*relay.Relay) error {
	var errs []error
	for _, rl := range relays {
		errs = append(errs, rl.Close())
	}
	return errors.Join(errs...)
}

// relayAuthenticator returns the authenticator for clients when a relayed
// Cassandra cluster requires authentication and dohyo has no users of its
// own: the clients' credentials are checked by Cassandra (pass-through).
func relayAuthenticator(relays map[string]*relay.Relay) cqlserver.Authenticator {
	for _, rl := range relays {
		if rl.RequiresAuth() {
			return cqlserver.RelayAuthenticator{Relay: rl}
		}
	}
	return nil
}

// watchRelays exports each relay's counters on /metrics.
func watchRelays(m *metrics.Metrics, relays map[string]*relay.Relay) error {
	for name, rl := range relays {
		err := m.WatchRelay(name, func() metrics.RelayStats {
			st := rl.Stats()
			out := metrics.RelayStats{Requests: st.Requests, Reprepares: st.Reprepares, Failures: st.Failures,
				Connections: st.Connections, Resends: st.Resends, SchemaAgreed: st.SchemaAgreed, SchemaDisagreed: st.SchemaDisagreed}
			for _, n := range rl.NodeStats() {
				out.Nodes = append(out.Nodes, metrics.RelayNodeStats{Node: n.Node, State: n.State,
					Requests: n.Requests, Lost: n.Lost, Downs: n.Downs})
			}
			return out
		})
		if err != nil {
			return err
		}
	}
	return nil
}
