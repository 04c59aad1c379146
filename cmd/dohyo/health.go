package main

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy"
)

// registerHealth adds /health/liveness (the process answers) and
// /health/readiness (every backend answers a ping; 503 otherwise).
func registerHealth(mux *http.ServeMux, coord *proxy.Coordinator) {
	mux.HandleFunc("GET /health/liveness", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "UP"})
	})
	mux.HandleFunc("GET /health/readiness", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		type backendStatus struct {
			Status string `json:"status"`
			Error  string `json:"error,omitempty"`
		}
		all := map[string]backendStatus{}
		code := http.StatusOK
		for _, name := range coord.BackendNames() {
			st := backendStatus{Status: "UP"}
			if p, ok := coord.Backend(name).(bindings.Pinger); ok {
				if err := p.Ping(ctx); err != nil {
					st = backendStatus{Status: "DOWN", Error: err.Error()}
					code = http.StatusServiceUnavailable
				}
			}
			all[name] = st
		}
		status := "UP"
		if code != http.StatusOK {
			status = "DOWN"
		}
		writeJSON(w, code, map[string]any{"status": status, "backends": all})
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
