package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy"
)

// health serves /health/liveness (the process answers) and
// /health/readiness (every backend answers a ping, and the process is not
// shutting down; 503 otherwise, so load balancers stop sending traffic
// while it drains).
type health struct {
	coord    *proxy.Coordinator
	draining atomic.Bool
}

func registerHealth(mux *http.ServeMux, coord *proxy.Coordinator) *health {
	h := &health{coord: coord}
	mux.HandleFunc("GET /health/liveness", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "UP"})
	})
	mux.HandleFunc("GET /health/readiness", h.readiness)
	return h
}

func (h *health) readiness(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	type backendStatus struct {
		Status string `json:"status"`
		Error  string `json:"error,omitempty"`
	}
	all := map[string]backendStatus{}
	code := http.StatusOK
	for _, name := range h.coord.BackendNames() {
		st := backendStatus{Status: "UP"}
		if p, ok := bindings.Capability[bindings.Pinger](h.coord.Backend(name)); ok {
			if err := p.Ping(ctx); err != nil {
				st = backendStatus{Status: "DOWN", Error: err.Error()}
				code = http.StatusServiceUnavailable
			}
		}
		all[name] = st
	}
	body := map[string]any{"backends": all}
	if h.draining.Load() {
		body["draining"] = true
		code = http.StatusServiceUnavailable
	}
	body["status"] = "UP"
	if code != http.StatusOK {
		body["status"] = "DOWN"
	}
	writeJSON(w, code, body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// newHealthCmd is `dohyo health`: a probe for container HEALTHCHECKs in
// images without curl (distroless). It exits 0 when the URL answers 200.
func newHealthCmd() *cobra.Command {
	var url string
	var timeout time.Duration
	var insecure bool
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Probe a dohyo health endpoint (exit 0 when it answers 200), e.g. for a container HEALTHCHECK",
		Example: `  dohyo health                                                   # liveness of a local dohyo
  dohyo health --url http://127.0.0.1:8080/health/readiness     # 503 (exit 1) while a backend is down`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return err
			}
			client := &http.Client{Transport: &http.Transport{
				// A probe of the local instance: its certificate names the service, not 127.0.0.1.
				TLSClientConfig: &tls.Config{InsecureSkipVerify: insecure}, //nolint:gosec // opt-in flag
			}}
			resp, err := client.Do(req)
			if err != nil {
				return fmt.Errorf("health: %w", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			fmt.Fprint(cmd.OutOrStdout(), string(body))
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("health: %s answered %s", url, resp.Status)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "http://127.0.0.1:8080/health/liveness", "endpoint to probe")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "give up after this long")
	cmd.Flags().BoolVar(&insecure, "insecure", false, "do not verify the HTTPS certificate")
	return cmd
}
