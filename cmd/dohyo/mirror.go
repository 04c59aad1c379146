package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy/mirror"
)

// openMirror opens the mirror backends of cfg.Mirrors (nil without any):
// each distinct URL once, keyed by its URL.
func openMirror(ctx context.Context, cfg Config, log *slog.Logger) (*mirror.Mirror, []bindings.Backend, error) {
	if len(cfg.Mirrors) == 0 {
		return nil, nil, nil
	}
	var opened []bindings.Backend
	closeAll := func() {
		for _, b := range opened {
			_ = b.Close()
		}
	}
	mc := mirror.Config{Keyspaces: map[string][]string{}, ReadSample: cfg.MirrorReadSample, Queue: cfg.MirrorQueue,
		Logger: log.With("component", "mirror")}
	seen := map[string]bool{}
	for _, r := range cfg.Mirrors {
		ks, u, _ := strings.Cut(r, "=")
		if !seen[u] {
			b, err := openBackend(ctx, u)
			if err != nil {
				closeAll()
				return nil, nil, errors.Join(errors.New("mirror "+r), err)
			}
			opened = append(opened, b)
			mc.Targets = append(mc.Targets, mirror.Target{Name: u, Backend: b})
			seen[u] = true
		}
		mc.Keyspaces[ks] = append(mc.Keyspaces[ks], u)
	}
	m, err := mirror.New(mc)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return m, opened, nil
}

// registerMirrorAdmin serves GET /admin/mirror (every mirror's state and
// counters, with mismatch examples) and PUT /admin/mirror/keyspaces (a
// JSON object keyspace -> [mirror URL], replacing which keyspaces are
// mirrored; only mirrors opened at start can be named), each behind admin.
func registerMirrorAdmin(mux *http.ServeMux, m *mirror.Mirror, admin func(http.Handler) http.Handler) {
	mux.Handle("GET /admin/mirror", admin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m == nil {
			writeJSON(w, http.StatusOK, map[string]any{"mirrors": []any{}})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"mirrors": m.Status(), "keyspaces": m.Keyspaces()})
	})))
	mux.Handle("PUT /admin/mirror/keyspaces", admin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m == nil {
			writeJSON(w, http.StatusConflict, map[string]any{"error": "no mirror is configured (start with --mirror KEYSPACE=URL)"})
			return
		}
		var ks map[string][]string
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&ks); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body must be a JSON object of keyspace -> [mirror URL]: " + err.Error()})
			return
		}
		if err := m.SetKeyspaces(ks); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"keyspaces": m.Keyspaces()})
	})))
}
