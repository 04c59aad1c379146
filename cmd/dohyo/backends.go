package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/proxy"
)

// openBackend opens a backend from its URL. The scheme picks the binding.
// th, when set, are the batch thresholds of the executed backends.
func openBackend(ctx context.Context, rawURL string, th ...*engine.Thresholds) (bindings.Backend, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("backend URL %q: %w", rawURL, err)
	}
	var opts engine.Options
	if len(th) > 0 {
		opts.Thresholds = th[0]
	}
	var b bindings.Backend
	switch u.Scheme {
	case "embedded":
		return stores.OpenURL(ctx, rawURL, opts)
	case "hbase":
		b, err = stores.OpenURL(ctx, rawURL, opts)
	case "cassandra":
		b, err = cassandra.OpenURL(ctx, rawURL)
	case "":
		return nil, fmt.Errorf("backend URL %q has no scheme (embedded://, hbase://, cassandra://)", rawURL)
	default:
		return nil, fmt.Errorf("backend URL %q: scheme %q is not supported (embedded://, hbase://, cassandra://)", rawURL, u.Scheme)
	}
	var be *bindings.Error
	if err != nil && errors.As(err, &be) && be.Code == bindings.CodeUnavailable {
		// Say which setting points there (the URL without its password).
		return nil, fmt.Errorf("backend %s unreachable: is it running, and is that the address (--backend, --route)? %w", u.Redacted(), err)
	}
	return b, err
}

// backendSet opens the default backend and every routed one, once per
// distinct URL. Backends are named by their URL.
type backendSet struct {
	byName map[string]bindings.Backend
	def    string
	routes map[string]string
}

// th, when set, are the batch thresholds of the executed backends; wrap,
// if not nil, wraps each backend as it is opened (serverHooks).
func openBackends(ctx context.Context, def string, routes []string, th *engine.Thresholds, wrap func(string, bindings.Backend) bindings.Backend) (*backendSet, error) {
	set := &backendSet{byName: map[string]bindings.Backend{}, def: def, routes: map[string]string{}}
	open := func(u string) error {
		if _, ok := set.byName[u]; ok {
			return nil
		}
		b, err := openBackend(ctx, u, th)
		if err != nil {
			return err
		}
		if wrap != nil {
			b = wrap(u, b)
		}
		set.byName[u] = b
		return nil
	}
	if err := open(def); err != nil {
		return nil, err
	}
	for _, r := range routes {
		ks, u, _ := strings.Cut(r, "=")
		if err := open(u); err != nil {
			return nil, errors.Join(err, set.close())
		}
		set.routes[ks] = u
	}
	return set, nil
}

func (s *backendSet) close() error {
	var errs []error
	for name, b := range s.byName {
		if err := b.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// watchSharedSchema pushes the schema changes that backends pick up from
// other instances to this instance's clients (SCHEMA_CHANGE events), for
// keyspaces routed to that backend.
func watchSharedSchema(set *backendSet, coord *proxy.Coordinator) {
	for name, b := range set.byName {
		w, ok := bindings.Capability[bindings.SchemaWatcher](b)
		if !ok {
			continue
		}
		w.OnSchemaChange(func(ch *bindings.SchemaChange) {
			if coord.Route(ch.Keyspace).Name == name {
				coord.NotifySchemaChange(ch)
			}
		})
	}
}
