package stores

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/hbase"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/kv"
)

// Embedded opens the engine on a new embedded store. A nil opts.Logger is
// the store's Logger.
func Embedded(ctx context.Context, cfg embedded.Config, opts engine.Options) (*engine.Engine, error) {
	st, err := embedded.OpenStore(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = cfg.Logger
	}
	return on(ctx, "embedded", st, opts)
}

// HBase connects to HBase and opens the engine on it. ctx bounds the
// connection: with HBase unreachable it fails when ctx ends (or after
// cfg.OpTimeout) with an Unavailable error. A nil opts.Logger is the
// store's Logger.
func HBase(ctx context.Context, cfg hbase.Config, opts engine.Options) (*engine.Engine, error) {
	st, err := hbase.OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = cfg.Logger
	}
	return on(ctx, "hbase", st, opts)
}

// OpenURL opens the engine on the store an embedded:// or hbase:// URL
// describes (embedded.ParseURL, hbase.ParseURL).
func OpenURL(ctx context.Context, rawURL string, opts engine.Options) (*engine.Engine, error) {
	scheme, _, _ := strings.Cut(rawURL, "://")
	switch strings.ToLower(scheme) {
	case "embedded":
		cfg, err := embedded.ParseURL(rawURL)
		if err != nil {
			return nil, err
		}
		return Embedded(ctx, cfg, opts)
	case "hbase":
		cfg, err := hbase.ParseURL(rawURL)
		if err != nil {
			return nil, err
		}
		return HBase(ctx, cfg, opts)
	}
	u, _ := url.Parse(rawURL)
	name := rawURL
	if u != nil {
		name = u.Redacted()
	}
	return nil, fmt.Errorf("stores: %q is not an embedded:// or hbase:// URL", name)
}

// on opens the engine on st (closed when that fails).
func on(ctx context.Context, what string, st kv.KV, opts engine.Options) (*engine.Engine, error) {
	e, err := engine.Open(ctx, st, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: open engine: %w", what, err)
	}
	return e, nil
}
