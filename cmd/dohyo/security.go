package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy/cqlserver"
	"github.com/dohyo/dohyo/schema"
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

// roleStore is the metadata store roles live in (bindings.MetaStoreProvider):
// that of the default backend when it has one (embedded, HBase), else of
// the first such routed backend, so every instance on the same store shares the roles
// (nil: none, roles stay in memory).
func roleStore(set *backendSet) auth.Store {
	names := []string{set.def}
	for _, n := range slices.Sorted(maps.Keys(set.byName)) {
		if n != set.def {
			names = append(names, n)
		}
	}
	for _, n := range names {
		if p, ok := bindings.Capability[bindings.MetaStoreProvider](set.byName[n]); ok {
			return p.MetaStore()
		}
	}
	return nil
}

// relayedBackends are the backends served by relays (bindings.Relayable,
// Cassandra): their
// keyspaces keep Cassandra's own authentication and authorization.
func relayedBackends(set *backendSet) map[string]bool {
	out := map[string]bool{}
	for n, b := range set.byName {
		if _, ok := bindings.Capability[bindings.Relayable](b); ok {
			out[n] = true
		}
	}
	return out
}

// roleManager returns dohyo's roles (nil when no backend can keep them and
// no users are configured). The configured users are its bootstrap login
// superusers; catalog resolves GRANT's keyspaces and tables.
func roleManager(set *backendSet, users map[string]string, catalog func(context.Context) (*schema.Catalog, error),
	log *slog.Logger) (*auth.Manager, error) {
	store := roleStore(set)
	if store == nil && len(users) == 0 {
		return nil, nil
	}
	return auth.New(auth.Config{
		Store:     store,
		Bootstrap: users,
		Logger:    log,
		Exists: func(ctx context.Context, res auth.Resource) (bool, error) {
			cat, err := catalog(ctx)
			if err != nil {
				return false, err
			}
			ks := cat.Keyspace(res.Keyspace)
			if ks == nil || res.Table == "" {
				return ks != nil, nil
			}
			return ks.Tables[res.Table] != nil, nil
		},
	})
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
