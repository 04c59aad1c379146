package mirror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/dohyo/dohyo/replay"
)

// LiveRefresh is how often the live mirror page reloads itself.
const LiveRefresh = 10 * time.Second

// errNoMirror answers the endpoints that need a mirror when none is
// configured.
const errNoMirror = "no mirror is configured (start with --mirror KEYSPACE=URL)"

// AdminConfig configures RegisterAdmin.
type AdminConfig struct {
	// Admin wraps every handler (authentication and the admin check).
	Admin func(http.Handler) http.Handler
	// Primary is the primary backend's URL; reports name it without its
	// secrets (replay.RedactURL).
	Primary string
	// Version is dohyo's build, stamped on reports.
	Version string
}

// RegisterAdmin serves, each behind cfg.Admin:
//
//   - GET /admin/mirror: every mirror's state and counters, with mismatch
//     examples, and which keyspaces are mirrored;
//   - PUT /admin/mirror/keyspaces: a JSON object keyspace -> [mirror URL]
//     replacing which keyspaces are mirrored (only mirrors opened at
//     start can be named);
//   - GET /admin/mirror/report?window=10m&format=json|text|html: the live
//     comparison as a replay-format report;
//   - GET /admin/mirror/live?window=10m: that report in HTML, reloading
//     itself every LiveRefresh (self-contained: no external assets).
//
// m may be nil (no mirror configured): the status lists no mirror, the
// others answer 409 Conflict.
func RegisterAdmin(mux *http.ServeMux, m *Mirror, cfg AdminConfig) {
	a := admin{m: m, primary: replay.RedactURL(cfg.Primary), version: cfg.Version}
	mux.Handle("GET /admin/mirror", cfg.Admin(http.HandlerFunc(a.status)))
	mux.Handle("PUT /admin/mirror/keyspaces", cfg.Admin(http.HandlerFunc(a.setKeyspaces)))
	mux.Handle("GET /admin/mirror/report", cfg.Admin(http.HandlerFunc(a.report)))
	mux.Handle("GET /admin/mirror/live", cfg.Admin(http.HandlerFunc(a.live)))
}

// admin holds the endpoints' state.
type admin struct {
	m       *Mirror // nil: none configured
	primary string  // redacted
	version string
}

func (a admin) status(w http.ResponseWriter, _ *http.Request) {
	if a.m == nil {
		writeJSON(w, http.StatusOK, map[string]any{"mirrors": []any{}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"mirrors": a.m.Status(), "keyspaces": a.m.Keyspaces()})
}

func (a admin) setKeyspaces(w http.ResponseWriter, r *http.Request) {
	if a.m == nil {
		writeJSON(w, http.StatusConflict, map[string]any{"error": errNoMirror})
		return
	}
	var ks map[string][]string
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&ks); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body must be a JSON object of keyspace -> [mirror URL]: " + err.Error()})
		return
	}
	if err := a.m.SetKeyspaces(ks); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"keyspaces": a.m.Keyspaces()})
}

// liveReport is the report of r's window (?window=, up to 1h); false when
// it answered an error instead.
func (a admin) liveReport(w http.ResponseWriter, r *http.Request) (*replay.Report, bool) {
	if a.m == nil {
		writeJSON(w, http.StatusConflict, map[string]any{"error": errNoMirror})
		return nil, false
	}
	var window time.Duration
	if v := r.URL.Query().Get("window"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > time.Hour {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "window must be a duration up to 1h (e.g. 10m)"})
			return nil, false
		}
		window = d
	}
	return a.m.Report(ReportOptions{Window: window, Primary: a.primary, Version: a.version}), true
}

func (a admin) report(w http.ResponseWriter, r *http.Request) {
	rep, ok := a.liveReport(w, r)
	if !ok {
		return
	}
	if err := WriteReport(w, rep, r.URL.Query().Get("format")); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
	}
}

func (a admin) live(w http.ResponseWriter, r *http.Request) {
	rep, ok := a.liveReport(w, r)
	if !ok {
		return
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	page := strings.Replace(buf.String(), "<head>",
		fmt.Sprintf(`<head><meta http-equiv="refresh" content="%d"><link rel="icon" href="data:,">`, int(LiveRefresh.Seconds())), 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, page)
}

// WriteReport writes rep as json ("" too), text or html, with its
// content type when w is an HTTP response.
func WriteReport(w io.Writer, rep *replay.Report, format string) error {
	ct := map[string]string{"": "application/json", "json": "application/json", "text": "text/plain; charset=utf-8",
		"html": "text/html; charset=utf-8"}[format]
	if ct == "" {
		return fmt.Errorf("format %q: want json, text or html", format)
	}
	if hw, ok := w.(http.ResponseWriter); ok {
		hw.Header().Set("Content-Type", ct)
	}
	switch format {
	case "text":
		return rep.WriteText(w)
	case "html":
		return rep.WriteHTML(w)
	}
	return rep.WriteJSON(w)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
