package control

import (
	"context"
	"encoding/json"
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
	"github.com/dohyo/dohyo/schema"
)

// Config configures a Switch.
type Config struct {
	// Writer configures each capture writer; Writer.Dir is the directory
	// used when a start names none.
	Writer capture.WriterConfig
	// Root is the directory a start's ?dir= must lie under; "": ?dir= is
	// refused.
	Root string
	// Catalog returns the schema written into segments (replay's
	// --create-schema applies it); nil: none.
	Catalog func(ctx context.Context) (*schema.Catalog, error)
	// Logger receives starts, stops and refusals; nil discards.
	Logger *slog.Logger
}

// Switch is the proxy's tap while serving: it forwards observations to the
// current capture writer, if any, so capture can be started and stopped at
// runtime without touching the request path beyond one atomic load.
type Switch struct {
	cur atomic.Pointer[capture.Writer]
	dir atomic.Pointer[string] // the running writer's directory
	mu  sync.Mutex             // serialises start/stop
	cfg Config
	log *slog.Logger

	// Counters of writers already stopped, so that metrics (totals) never
	// go backwards across a capture stop and start.
	totMu    sync.Mutex
	stopping *capture.Writer // being closed: counted live
	closed   capture.Stats   // final counters of closed writers
}

var _ bindings.RowsWanter = (*Switch)(nil)

// New returns a stopped Switch.
func New(cfg Config) *Switch {
	s := &Switch{cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Running tells whether a capture runs, and into which directory.
func (t *Switch) Running() (dir string, ok bool) {
	if t.cur.Load() == nil {
		return "", false
	}
	if d := t.dir.Load(); d != nil {
		return *d, true
	}
	return "", true
}

// WantsRows tells the request path whether to digest result rows: only
// while a capture runs.
func (t *Switch) WantsRows() bool { return t.cur.Load() != nil }

// WantsValues tells the request path whether to decode bound values: only
// while a capture runs.
func (t *Switch) WantsValues() bool { return t.cur.Load() != nil }

// Observe implements the proxy's Tap.
func (t *Switch) Observe(o *bindings.Observation) {
	if w := t.cur.Load(); w != nil {
		w.Observe(o)
	}
}

// Start opens a writer in dir (the configured directory when empty).
func (t *Switch) Start(ctx context.Context, dir string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.cur.Load(); w != nil {
		return "", errors.New("capture is already running")
	}
	cfg := t.cfg.Writer
	if dir != "" {
		cfg.Dir = dir
	}
	if cfg.Dir == "" {
		return "", errors.New("no capture directory: pass ?dir= or set capture-dir")
	}
	cfg.SchemaDDL = t.schemaDDL(ctx)
	w, err := capture.NewWriter(cfg)
	if err != nil {
		return "", fmt.Errorf("start capture: %w", err)
	}
	t.cur.Store(w)
	t.dir.Store(&cfg.Dir)
	t.log.Info("capture started", "dir", cfg.Dir)
	return cfg.Dir, nil
}

// Stop flushes and closes the current writer.
func (t *Switch) Stop(ctx context.Context) (*capture.Stats, error) {
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
	t.closed.WrittenThrough = laterOf(t.closed.WrittenThrough, st.WrittenThrough)
	t.closed.SyncedThrough = laterOf(t.closed.SyncedThrough, st.SyncedThrough)
	t.stopping = nil
	t.totMu.Unlock()
	t.log.Info("capture stopped", "records", st.Records, "dropped", st.Dropped, "bytes", st.Bytes)
	return &st, err
}

// Totals returns the records, bytes and dropped counts of every writer
// this tap has run, the current one included, and the latest durability
// marks (capture.Stats.WrittenThrough, SyncedThrough) among them.
func (t *Switch) Totals() capture.Stats {
	t.totMu.Lock()
	defer t.totMu.Unlock()
	out := t.closed
	for _, w := range []*capture.Writer{t.stopping, t.cur.Load()} {
		if w != nil {
			st := w.Stats()
			out.Records += st.Records
			out.Bytes += st.Bytes
			out.Dropped += st.Dropped
			out.WrittenThrough = laterOf(out.WrittenThrough, st.WrittenThrough)
			out.SyncedThrough = laterOf(out.SyncedThrough, st.SyncedThrough)
		}
	}
	return out
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// SchemaChanged refreshes the DDL snapshot written into segments.
func (t *Switch) SchemaChanged(*bindings.SchemaChange) {
	if w := t.cur.Load(); w != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		w.SetSchema(t.schemaDDL(ctx))
	}
}

// schemaDDL renders the user keyspaces of the merged catalog as CREATE
// statements, the self-description replay's --create-schema applies.
func (t *Switch) schemaDDL(ctx context.Context) string {
	if t.cfg.Catalog == nil {
		return ""
	}
	cat, err := t.cfg.Catalog(ctx)
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
		for _, u := range ks.TypesInDependencyOrder() {
			b.WriteString(schema.DescribeType(u))
			b.WriteString("\n\n")
		}
		for _, tn := range ks.TableNames() {
			b.WriteString(ks.Tables[tn].CreateStatement())
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// Register adds the admin endpoints, each wrapped by admin: GET
// /admin/capture (status), POST /admin/capture/start[?dir=DIR] (DIR under
// the capture root) and POST /admin/capture/stop.
func (t *Switch) Register(mux *http.ServeMux, admin func(http.Handler) http.Handler) {
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
			if dir, err = dirUnder(t.cfg.Root, dir); err != nil {
				t.log.Warn("capture start refused", "remote", r.RemoteAddr, "err", err)
				writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
				return
			}
		}
		dir, err := t.Start(r.Context(), dir)
		if err != nil {
			writeJSON(w, http.StatusConflict, map[string]any{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"running": true, "dir": dir})
	})
	handle("POST /admin/capture/stop", func(w http.ResponseWriter, r *http.Request) {
		st, err := t.Stop(r.Context())
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

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
