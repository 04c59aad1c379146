package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/schema"
)

// captureTap is the coordinator's tap in dohyo serve: it forwards
// observations to the current capture writer, if any, so capture can be
// started and stopped at runtime without touching the request path beyond
// one atomic load.
type captureTap struct {
	cur   atomic.Pointer[capture.Writer]
	mu    sync.Mutex // serialises start/stop
	cfg   capture.WriterConfig
	root  string // ?dir= must lie under it; "": ?dir= refused
	log   *slog.Logger
	coord func() *proxy.Coordinator

	// Counters of writers already stopped, so that metrics (totals) never
	// go backwards across a capture stop and start.
	totMu    sync.Mutex
	stopping *capture.Writer // being closed: counted live
	closed   capture.Stats   // final counters of closed writers
}

// Observe implements proxy.Tap.
// WantsRows tells the relay whether to digest result rows: only while a
// capture runs.
func (t *captureTap) WantsRows() bool { return t.cur.Load() != nil }

func (t *captureTap) Observe(o *bindings.Observation) {
	if w := t.cur.Load(); w != nil {
		w.Observe(o)
	}
}

// start opens a writer in dir (the configured directory when empty).
func (t *captureTap) start(ctx context.Context, dir string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.cur.Load(); w != nil {
		return "", errors.New("capture is already running")
	}
	cfg := t.cfg
	if dir != "" {
		cfg.Dir = dir
	}
	if cfg.Dir == "" {
		return "", errors.New("no capture directory: pass ?dir= or set capture-dir")
	}
	cfg.SchemaDDL = schemaDDL(ctx, t.coord())
	w, err := capture.NewWriter(cfg)
	if err != nil {
		return "", fmt.Errorf("start capture: %w", err)
	}
	t.cur.Store(w)
	t.log.Info("capture started", "dir", cfg.Dir)
	return cfg.Dir, nil
}

// stop flushes and closes the current writer.
func (t *captureTap) stop(ctx context.Context) (*capture.Stats, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.totMu.Lock()
	w := t.cur.Swap(nil)
	t.stopping = w
	t.totMu.Unlock()
	if w == nil {
		return nil, errors.New("capture is not running")
	}
	err := w.Close(ctx)
	st := w.Stats()
	t.totMu.Lock()
	t.closed.Records += st.Records
	t.closed.Bytes += st.Bytes
	t.closed.Dropped += st.Dropped
	t.stopping = nil
	t.totMu.Unlock()
	t.log.Info("capture stopped", "records", st.Records, "dropped", st.Dropped, "bytes", st.Bytes)
	return &st, err
}

// totals returns the records, bytes and dropped counts of every writer
// this tap has run, the current one included.
func (t *captureTap) totals() capture.Stats {
	t.totMu.Lock()
	defer t.totMu.Unlock()
	out := t.closed
	for _, w := range []*capture.Writer{t.stopping, t.cur.Load()} {
		if w != nil {
			st := w.Stats()
			out.Records += st.Records
			out.Bytes += st.Bytes
			out.Dropped += st.Dropped
		}
	}
	return out
}

// schemaChanged refreshes the DDL snapshot written into segments.
func (t *captureTap) schemaChanged(*bindings.SchemaChange) {
	if w := t.cur.Load(); w != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		w.SetSchema(schemaDDL(ctx, t.coord()))
	}
}

// schemaDDL renders the user keyspaces of the merged catalog as CREATE
// statements, the self-description replay's --create-schema applies.
func schemaDDL(ctx context.Context, coord *proxy.Coordinator) string {
	if coord == nil {
		return ""
	}
	cat, err := coord.Catalog(ctx)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, name := range cat.KeyspaceNames() {
		if schema.IsSystemKeyspace(name) {
			continue
		}
		ks := cat.Keyspaces[name]
		b.WriteString(ks.CreateStatement())
		b.WriteString("\n\n")
		for _, tn := range ks.TableNames() {
			b.WriteString(ks.Tables[tn].CreateStatement())
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// register adds the admin endpoints, each wrapped by admin: GET
// /admin/capture (status), POST /admin/capture/start[?dir=DIR] (DIR under
// the capture root) and POST /admin/capture/stop.
func (t *captureTap) register(mux *http.ServeMux, admin func(http.Handler) http.Handler) {
	handle := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, admin(h)) }
	handle("GET /admin/capture", func(w http.ResponseWriter, r *http.Request) {
		cw := t.cur.Load()
		if cw == nil {
			writeJSON(w, http.StatusOK, map[string]any{"running": false})
			return
		}
		st := cw.Stats()
		state := "ok"
		if st.Problem != "" {
			state = "degraded" // records are being lost: stats.Problem says why
		}
		writeJSON(w, http.StatusOK, map[string]any{"running": true, "state": state, "stats": st})
	})
	handle("POST /admin/capture/start", func(w http.ResponseWriter, r *http.Request) {
		dir := r.URL.Query().Get("dir")
		if dir != "" {
			var err error
			if dir, err = dirUnder(t.root, dir); err != nil {
				t.log.Warn("capture start refused", "remote", r.RemoteAddr, "err", err)
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
				return
			}
		}
		dir, err := t.start(r.Context(), dir)
		if err != nil {
			writeJSON(w, http.StatusConflict, map[string]any{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"running": true, "dir": dir})
	})
	handle("POST /admin/capture/stop", func(w http.ResponseWriter, r *http.Request) {
		st, err := t.stop(r.Context())
		if st == nil {
			writeJSON(w, http.StatusConflict, map[string]any{"error": err.Error()})
			return
		}
		body := map[string]any{"running": false, "stats": st}
		if err != nil {
			body["error"] = err.Error()
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// captureRoot is the directory ?dir= must lie under: capture-root, else
// capture-dir's parent, else none.
func captureRoot(cfg Config) string {
	switch {
	case cfg.CaptureRoot != "":
		return cfg.CaptureRoot
	case cfg.CaptureDir != "":
		return filepath.Dir(filepath.Clean(cfg.CaptureDir))
	}
	return ""
}

// dirUnder resolves dir (relative: to root) and checks that it lies under
// root once symbolic links are followed; ".." is refused outright.
func dirUnder(root, dir string) (string, error) {
	if root == "" {
		return "", errors.New("?dir= is refused: set capture-root (or capture-dir) to allow directories under it")
	}
	if slices.Contains(strings.Split(filepath.ToSlash(dir), "/"), "..") {
		return "", fmt.Errorf("capture dir %q: \"..\" is not allowed", dir)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("capture root: %w", err)
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return "", fmt.Errorf("capture root: %w", err)
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(absRoot, dir)
	}
	dir = filepath.Clean(dir)
	real, err := realPath(dir)
	if err != nil {
		return "", fmt.Errorf("capture dir %q: %w", dir, err)
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("capture dir %q is not under the capture root %s", dir, root)
	}
	return real, nil
}

// realPath follows the symbolic links of the longest existing prefix of p
// (the rest does not exist yet, so it holds none).
func realPath(p string) (string, error) {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// captureConfig maps serve's settings onto the writer's.
func captureConfig(cfg Config, log *slog.Logger) (capture.WriterConfig, error) {
	wc := capture.DefaultWriterConfig()
	wc.Dir = cfg.CaptureDir
	wc.NodeID = cfg.NodeID
	wc.DohyoVersion = buildVersion()
	wc.FlushInterval = cfg.CaptureFlush
	wc.MaxSegmentBytes = int64(cfg.CaptureSegment)
	wc.MaxSegmentAge = cfg.CaptureSegmentAge
	wc.RetentionBytes = int64(cfg.CaptureRetention)
	wc.QueueSize = cfg.CaptureQueue
	wc.Sampling = cfg.CaptureSample
	wc.IncludeKeyspaces = cfg.CaptureKeyspaces
	wc.ExcludeKeyspaces = cfg.CaptureExclude
	wc.RedactKey = cfg.CaptureRedactKey
	wc.Logger = log
	rules, err := parseRedactRules(cfg.CaptureRedact)
	if err != nil {
		return wc, err
	}
	wc.Redact = rules
	return wc, nil
}

// parseRedactRules parses KEYSPACE.TABLE.COLUMN=drop|hash|length items.
func parseRedactRules(items []string) ([]capture.RedactRule, error) {
	var out []capture.RedactRule
	for _, it := range items {
		col, action, ok := strings.Cut(it, "=")
		if !ok || strings.Count(col, ".") < 2 {
			return nil, fmt.Errorf("%q is not KEYSPACE.TABLE.COLUMN=drop|hash|length", it)
		}
		var r capture.Redaction
		if err := r.UnmarshalText([]byte(action)); err != nil {
			return nil, fmt.Errorf("%q: %w", it, err)
		}
		out = append(out, capture.RedactRule{Column: col, Action: r})
	}
	return out, nil
}
