package cqlserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// tlsHandshakeTimeout bounds a client's TLS handshake.
const tlsHandshakeTimeout = 10 * time.Second

// LoadTLSConfig builds a server TLS configuration from PEM files: a
// certificate chain and its key, and optionally a CA bundle that client
// certificates must chain to (mutual TLS: clients without a valid
// certificate are refused). The key pair is re-read when either file
// changes, so rotated certificates (cert-manager, Vault) are picked up by
// new connections without a restart.
func LoadTLSConfig(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("tls: both a certificate and a key file are needed")
	}
	kp := &keyPair{certFile: certFile, keyFile: keyFile}
	if _, err := kp.get(); err != nil {
		return nil, err
	}
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return kp.get()
		},
	}
	if clientCAFile != "" {
		pem, err := os.ReadFile(clientCAFile)
		if err != nil {
			return nil, fmt.Errorf("tls client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls client CA %s: no PEM certificate found", clientCAFile)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// keyPair caches a certificate and reloads it when its files' modification
// times change.
type keyPair struct {
	certFile, keyFile string

	mu      sync.Mutex
	cert    *tls.Certificate
	modCert time.Time
	modKey  time.Time
}

func (k *keyPair) get() (*tls.Certificate, error) {
	ci, err := os.Stat(k.certFile)
	if err != nil {
		return k.stale(fmt.Errorf("tls certificate: %w", err))
	}
	ki, err := os.Stat(k.keyFile)
	if err != nil {
		return k.stale(fmt.Errorf("tls key: %w", err))
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cert != nil && ci.ModTime().Equal(k.modCert) && ki.ModTime().Equal(k.modKey) {
		return k.cert, nil
	}
	cert, err := tls.LoadX509KeyPair(k.certFile, k.keyFile)
	if err != nil {
		if k.cert != nil {
			return k.cert, nil // mid-rotation (one file written): keep serving the old pair
		}
		return nil, fmt.Errorf("tls key pair %s, %s: %w", k.certFile, k.keyFile, err)
	}
	k.cert, k.modCert, k.modKey = &cert, ci.ModTime(), ki.ModTime()
	return k.cert, nil
}

// stale serves the last good pair when the files vanished for a moment.
func (k *keyPair) stale(err error) (*tls.Certificate, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cert != nil {
		return k.cert, nil
	}
	return nil, err
}

// handshakeTLS completes the TLS handshake of a TLS connection before its
// first frame, within tlsHandshakeTimeout. A failed handshake (under
// mutual TLS: no or an untrusted client certificate) closes the
// connection.
func (c *conn) handshakeTLS() bool {
	tc, ok := c.nc.(*tls.Conn)
	if !ok {
		return true
	}
	ctx, cancel := context.WithTimeout(c.ctx, tlsHandshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		if errors.Is(err, io.EOF) {
			c.log.Debug("tls handshake: client went away", "err", err) // e.g. TCP health checks
		} else {
			c.log.Info("tls handshake failed", "err", err)
		}
		return false
	}
	return true
}
