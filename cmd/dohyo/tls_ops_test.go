package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/internal/testpki"
)

// TestServeTLS: gocql over TLS, mutual TLS (a client without a
// certificate, or with one from another CA, is refused) and HTTPS on the
// HTTP listener, with certificates from an in-test CA.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testpki.New(t, "dohyo test CA")
	caFile := ca.File(dir)
	cert, key := ca.IssueFiles(dir, "server", true)
	clientCert, clientKey := ca.IssueFiles(dir, "client", false)
	other := testpki.New(t, "another CA")
	otherCert, otherKey := other.IssueFiles(t.TempDir(), "intruder", false)

	connect := func(addr string, sslOpts *gocql.SslOptions) (*gocql.Session, error) {
		c := cluster(addr)
		c.SslOpts = sslOpts
		c.ConnectTimeout = 5 * time.Second
		return c.CreateSession()
	}
	query := func(t *testing.T, s *gocql.Session) {
		t.Helper()
		var v string
		if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("tls", func(t *testing.T) {
		p := startServe(t, "--backend", "embedded://memory", "--cql-tls-cert", cert, "--cql-tls-key", key,
			"--http-tls-cert", cert, "--http-tls-key", key)
		s, err := connect(p.CQLAddr, &gocql.SslOptions{Config: ca.ClientTLS(), EnableHostVerification: true})
		if err != nil {
			t.Fatalf("gocql over TLS: %v", err)
		}
		defer s.Close()
		query(t, s)
		if s, err := connect(p.CQLAddr, nil); err == nil {
			s.Close()
			t.Error("a plain-text client connected to the TLS port")
		}

		// HTTPS, checked against the CA; the hidden health probe too.
		httpsAddr := strings.TrimPrefix(p.HTTPAddr, "https://")
		if httpsAddr == p.HTTPAddr {
			t.Fatalf("HTTP address %q is not https", p.HTTPAddr)
		}
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: ca.ClientTLS()}}
		resp, err := client.Get("https://" + httpsAddr + "/health/liveness")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("liveness over HTTPS: %s", resp.Status)
		}
		if got, _ := total(scrape(t, client, "https://"+httpsAddr+"/metrics"), "dohyo_client_connections", nil); got < 1 {
			t.Errorf("dohyo_client_connections = %v over TLS", got)
		}
		bin := dohyoBinary(t)
		if out, err := runTool(t, time.Minute, bin, "health", "--insecure", "--url", "https://"+httpsAddr+"/health/readiness"); err != nil {
			t.Errorf("dohyo health over HTTPS: %v\n%s", err, out)
		}
		if _, err := runTool(t, time.Minute, bin, "health", "--url", "https://"+httpsAddr+"/health/readiness"); err == nil {
			t.Error("dohyo health trusted an unknown CA without --insecure")
		}
	})

	t.Run("mutual", func(t *testing.T) {
		p := startServe(t, "--backend", "embedded://memory", "--cql-tls-cert", cert, "--cql-tls-key", key, "--cql-tls-client-ca", caFile)
		if !strings.Contains(p.Output(), "(mutual TLS)") {
			t.Errorf("the banner does not say mutual TLS:\n%s", p.Output())
		}
		s, err := connect(p.CQLAddr, &gocql.SslOptions{Config: ca.ClientTLS(), CertPath: clientCert, KeyPath: clientKey, EnableHostVerification: true})
		if err != nil {
			t.Fatalf("gocql with a client certificate: %v", err)
		}
		defer s.Close()
		query(t, s)
		for name, opts := range map[string]*gocql.SslOptions{
			"no client certificate":    {Config: ca.ClientTLS(), EnableHostVerification: true},
			"foreign CA's certificate": {Config: ca.ClientTLS(), CertPath: otherCert, KeyPath: otherKey, EnableHostVerification: true},
		} {
			if s, err := connect(p.CQLAddr, opts); err == nil {
				s.Close()
				t.Errorf("%s: connected", name)
			}
		}
		if out := p.Output(); !strings.Contains(out, "tls handshake failed") {
			t.Errorf("refused handshakes are not logged:\n%s", out)
		}
	})
}
