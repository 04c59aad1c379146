package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/proxy/cqlserver"
)

// parseAuthUser splits a NAME:BCRYPT_HASH entry and checks the hash. Errors
// never quote the entry (it is a secret).
func parseAuthUser(entry string) (name, hash string, err error) {
	name, hash, ok := strings.Cut(strings.TrimSpace(entry), ":")
	if !ok || name == "" || hash == "" {
		return "", "", errors.New("not NAME:BCRYPT_HASH")
	}
	if _, err := bcrypt.Cost([]byte(hash)); err != nil {
		return "", "", fmt.Errorf("user %s: not a bcrypt hash (make one with dohyo config hash-password)", name)
	}
	return name, hash, nil
}

// authUsers merges auth-user entries and the auth-users-file; later entries
// for a name replace earlier ones.
func authUsers(cfg Config) (map[string]string, error) {
	users := map[string]string{}
	for i, e := range cfg.AuthUsers {
		name, hash, err := parseAuthUser(e)
		if err != nil {
			return nil, &FieldError{Key: "auth-user", Err: fmt.Errorf("entry %d: %w", i+1, err)}
		}
		users[name] = hash
	}
	if cfg.AuthUsersFile == "" {
		return users, nil
	}
	f, err := os.Open(cfg.AuthUsersFile)
	if err != nil {
		return nil, &FieldError{Key: "auth-users-file", Err: err}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, hash, err := parseAuthUser(line)
		if err != nil {
			return nil, &FieldError{Key: "auth-users-file", Err: fmt.Errorf("%s line %d: %w", cfg.AuthUsersFile, n, err)}
		}
		users[name] = hash
	}
	if err := sc.Err(); err != nil {
		return nil, &FieldError{Key: "auth-users-file", Err: err}
	}
	if len(users) == 0 {
		return nil, &FieldError{Key: "auth-users-file", Err: fmt.Errorf("%s has no users", cfg.AuthUsersFile)}
	}
	return users, nil
}

// authenticator returns the CQL authenticator the configuration asks for
// (nil: authentication off).
func authenticator(cfg Config) (cqlserver.Authenticator, error) {
	users, err := authUsers(cfg)
	if err != nil || len(users) == 0 {
		return nil, err
	}
	return cqlserver.NewPasswordAuthenticator(users)
}

// cqlTLS returns the CQL listener's TLS configuration (nil: plain text).
func cqlTLS(cfg Config) (*tls.Config, error) {
	if cfg.CQLTLSCert == "" {
		return nil, nil
	}
	t, err := cqlserver.LoadTLSConfig(cfg.CQLTLSCert, cfg.CQLTLSKey, cfg.CQLTLSClientCA)
	if err != nil {
		return nil, &FieldError{Key: "cql-tls-cert", Err: err}
	}
	return t, nil
}

// httpTLS returns the HTTP listener's TLS configuration (nil: plain HTTP).
func httpTLS(cfg Config) (*tls.Config, error) {
	if cfg.HTTPTLSCert == "" {
		return nil, nil
	}
	t, err := cqlserver.LoadTLSConfig(cfg.HTTPTLSCert, cfg.HTTPTLSKey, "")
	if err != nil {
		return nil, &FieldError{Key: "http-tls-cert", Err: err}
	}
	t.NextProtos = []string{"h2", "http/1.1"}
	return t, nil
}
