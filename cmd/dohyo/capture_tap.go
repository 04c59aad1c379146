package main

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/dohyo/dohyo/capture"
)

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
