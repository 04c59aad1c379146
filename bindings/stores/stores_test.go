package stores

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/engine"
)

// TestOpenURL: each scheme opens the engine on its store, whose
// capabilities the engine's Unwrap exposes; other URLs fail, naming them.
func TestOpenURL(t *testing.T) {
	e, err := OpenURL(t.Context(), "embedded://memory?salt=4", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, ok := bindings.Capability[*embedded.Store](e); !ok {
		t.Error("embedded:// opened no embedded store")
	}
	d, ok := bindings.Capability[bindings.ServerDescriber](e)
	if !ok {
		t.Fatal("the store's DescribeServer is not found through the engine")
	}
	if desc, _ := d.DescribeServer(t.Context(), nil); desc.Settings["salt"] != "4" {
		t.Errorf("salt from the URL: %q, want 4", desc.Settings["salt"])
	}
	for _, bad := range []string{"cassandra://127.0.0.1", "memory", "embedded://nowhere/x", "hbase://"} {
		if _, err := OpenURL(t.Context(), bad, engine.Options{}); err == nil {
			t.Errorf("OpenURL(%q): no error", bad)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = OpenURL(ctx, "hbase://127.0.0.1:1?timeout=1500ms", engine.Options{})
	if !errors.Is(err, bindings.ErrUnavailable) {
		t.Errorf("unreachable HBase: %v, want Unavailable", err)
	}
}
