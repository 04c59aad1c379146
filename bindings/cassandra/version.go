package cassandra

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
)

// ServerVersion asks the cluster now for its release_version: the
// contacted node's (system.local) and its peers' (system.peers). Distinct
// versions are listed, sorted, comma-separated, so a mixed-version cluster
// shows in a report.
func (b *Backend) ServerVersion(ctx context.Context) (string, error) {
	sess, release, err := b.sessions.acquire(ctx, "")
	if err != nil {
		return "", fmt.Errorf("cassandra: server version: %w", convertError(ctx, err, opRead, bindings.One))
	}
	defer release()
	var local string
	if err := sess.Query("SELECT release_version FROM system.local").WithContext(ctx).Consistency(gocql.One).Scan(&local); err != nil {
		return "", fmt.Errorf("cassandra: server version: %w", convertError(ctx, err, opRead, bindings.One))
	}
	vs := []string{local}
	it := sess.Query("SELECT release_version FROM system.peers").WithContext(ctx).Consistency(gocql.One).Iter()
	var v string
	for it.Scan(&v) {
		vs = append(vs, v)
	}
	_ = it.Close() // peers are a bonus: the local version stands alone
	slices.Sort(vs)
	return strings.Join(slices.Compact(vs), ", "), nil
}
