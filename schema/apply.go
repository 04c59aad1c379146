package schema

import (
	"fmt"
	"maps"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// nameLength is the longest keyspace or table name Cassandra accepts.
const nameLength = 48

// Keyspaces Cassandra reserves. Local and virtual ones are not
// user-modifiable; the replicated ones exist on every Cassandra cluster and
// are served by dohyo's CQL server, never by a backend's catalog.
var (
	localSystemKeyspaces = map[string]bool{
		"system": true, "system_schema": true, "system_views": true, "system_virtual_schema": true,
	}
	replicatedSystemKeyspaces = map[string]bool{
		"system_auth": true, "system_distributed": true, "system_traces": true,
	}
)

// IsSystemKeyspace reports whether name is one of Cassandra's system
// keyspaces (compared case-insensitively, as Cassandra does).
func IsSystemKeyspace(name string) bool {
	l := strings.ToLower(name)
	return localSystemKeyspaces[l] || replicatedSystemKeyspaces[l]
}

// Apply applies one DDL statement (CREATE/ALTER/DROP KEYSPACE or TABLE) and
// returns the resulting catalog. c itself is never modified: the result
// shares every keyspace and table the statement did not touch. Change is nil
// when the statement changed nothing (IF NOT EXISTS on an existing object,
// IF EXISTS on a missing one, an ALTER to the current settings); the catalog
// returned is then c. currentKeyspace is the session's keyspace, used when
// the statement names none. Errors are *Error with Cassandra's messages.
func (c *Catalog) Apply(stmt cql.Statement, currentKeyspace string) (*Catalog, *Change, error) {
	if c == nil {
		c = New()
	}
	var (
		ks  *Keyspace
		ch  *Change
		err *Error
	)
	if err := c.viewGuard(stmt, currentKeyspace); err != nil {
		return nil, nil, err
	}
	switch s := stmt.(type) {
	case *cql.CreateKeyspace:
		ks, ch, err = c.createKeyspace(s)
	case *cql.AlterKeyspace:
		ks, ch, err = c.alterKeyspace(s)
	case *cql.DropKeyspace:
		ch, err = c.dropKeyspace(s)
	case *cql.CreateTable:
		ks, ch, err = c.createTable(s, currentKeyspace)
	case *cql.AlterTable:
		ks, ch, err = c.alterTable(s, currentKeyspace)
		if err == nil && ch != nil {
			ks, err = withBaseChange(ks, s)
		}
	case *cql.DropTable:
		ks, ch, err = c.dropTable(s, currentKeyspace)
	case *cql.CreateIndex:
		ks, ch, err = c.createIndex(s, currentKeyspace)
	case *cql.DropIndex:
		ks, ch, err = c.dropIndex(s, currentKeyspace)
	case *cql.CreateType:
		ks, ch, err = c.createType(s, currentKeyspace)
	case *cql.AlterUserType:
		ks, ch, err = c.alterType(s, currentKeyspace)
	case *cql.DropType:
		ks, ch, err = c.dropType(s, currentKeyspace)
	case *cql.CreateView:
		ks, ch, err = c.createView(s, currentKeyspace)
	case *cql.AlterView:
		ks, ch, err = c.alterView(s, currentKeyspace)
	case *cql.DropView:
		ks, ch, err = c.dropView(s, currentKeyspace)
	case *cql.CreateFunction:
		ks, ch, err = c.createFunction(s, currentKeyspace)
	case *cql.DropFunction:
		ks, ch, err = c.dropFunction(s, currentKeyspace)
	case *cql.CreateAggregate:
		ks, ch, err = c.createAggregate(s, currentKeyspace)
	case *cql.DropAggregate:
		ks, ch, err = c.dropAggregate(s, currentKeyspace)
	case *cql.SetExtensions:
		ks, ch, err = c.setExtensions(s)
	default:
		return nil, nil, invalidf("%T is not a schema statement", stmt)
	}
	if err != nil {
		return nil, nil, err
	}
	if ch == nil {
		return c, nil, nil
	}
	next, verr := c.derive(ch.Keyspace, ks)
	if verr != nil {
		return nil, nil, verr
	}
	return next, ch, nil
}

// derive returns a copy of c with keyspace name replaced by ks (removed when
// ks is nil) and a new version.
func (c *Catalog) derive(name string, ks *Keyspace) (*Catalog, error) {
	version, err := timeUUID(c.opts, c.Version)
	if err != nil {
		return nil, err
	}
	next := &Catalog{Version: version, Keyspaces: maps.Clone(c.Keyspaces), opts: c.opts}
	if next.Keyspaces == nil {
		next.Keyspaces = map[string]*Keyspace{}
	}
	if ks == nil {
		delete(next.Keyspaces, name)
	} else {
		next.Keyspaces[name] = ks
	}
	return next, nil
}

// checkKeyspaceName applies the checks every schema statement makes before
// looking at the schema (AlterSchemaStatement.execute).
func checkKeyspaceName(name string) *Error {
	if localSystemKeyspaces[strings.ToLower(name)] {
		return invalidf("System keyspace '%s' is not user-modifiable", name)
	}
	if !validName(name) {
		return invalidf("Keyspace name must not be empty, more than %d characters long, "+
			"or contain non-alphanumeric-underscore characters (got '%s')", nameLength, name)
	}
	return nil
}

// validName matches Cassandra's \w{1,48} (ASCII word characters).
func validName(name string) bool {
	if name == "" || len(name) > nameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}

// replicatedSystem rejects changes to system_auth & co: dohyo's catalogs
// never hold them (the CQL server answers for them).
func replicatedSystem(name string) *Error {
	if replicatedSystemKeyspaces[strings.ToLower(name)] {
		return invalidf("System keyspace '%s' is not user-modifiable", name)
	}
	return nil
}

func (c *Catalog) createKeyspace(s *cql.CreateKeyspace) (*Keyspace, *Change, *Error) {
	if err := checkKeyspaceName(s.Name); err != nil {
		return nil, nil, err
	}
	attrs, err := keyspaceProperties(s.Options, s.Replication, s.DurableWrites)
	if err != nil {
		return nil, nil, err
	}
	if attrs.replication == nil {
		return nil, nil, invalidf("Missing mandatory option 'replication'")
	}
	if c.Keyspaces[s.Name] != nil || replicatedSystemKeyspaces[strings.ToLower(s.Name)] {
		if s.IfNotExists {
			return nil, nil, nil
		}
		return nil, nil, &Error{Code: AlreadyExists, Keyspace: s.Name,
			Message: fmt.Sprintf("Cannot add existing keyspace \"%s\"", s.Name)}
	}
	repl, err := buildReplication(c.opts, s.Name, attrs.replication, nil)
	if err != nil {
		return nil, nil, err
	}
	ks := &Keyspace{Name: s.Name, Replication: repl, DurableWrites: true, Tables: map[string]*Table{}}
	if attrs.durable != nil {
		ks.DurableWrites = *attrs.durable
	}
	return ks, &Change{Type: ChangeCreated, Target: TargetKeyspace, Keyspace: s.Name}, nil
}

func (c *Catalog) alterKeyspace(s *cql.AlterKeyspace) (*Keyspace, *Change, *Error) {
	if err := checkKeyspaceName(s.Name); err != nil {
		return nil, nil, err
	}
	if err := replicatedSystem(s.Name); err != nil {
		return nil, nil, err
	}
	attrs, err := keyspaceProperties(s.Options, s.Replication, s.DurableWrites)
	if err != nil {
		return nil, nil, err
	}
	old := c.Keyspaces[s.Name]
	if old == nil {
		if s.IfExists {
			return nil, nil, nil
		}
		return nil, nil, invalidf("Keyspace '%s' doesn't exist", s.Name)
	}
	ks := *old
	if attrs.durable != nil {
		ks.DurableWrites = *attrs.durable
	}
	if attrs.replication != nil {
		if ks.Replication, err = buildReplication(c.opts, s.Name, attrs.replication, old.Replication); err != nil {
			return nil, nil, err
		}
	}
	if ks.DurableWrites == old.DurableWrites && maps.Equal(ks.Replication, old.Replication) {
		return nil, nil, nil
	}
	return &ks, &Change{Type: ChangeUpdated, Target: TargetKeyspace, Keyspace: s.Name}, nil
}

func (c *Catalog) dropKeyspace(s *cql.DropKeyspace) (*Change, *Error) {
	if err := checkKeyspaceName(s.Name); err != nil {
		return nil, err
	}
	if err := replicatedSystem(s.Name); err != nil {
		return nil, err
	}
	if c.Keyspaces[s.Name] == nil {
		if s.IfExists {
			return nil, nil
		}
		return nil, invalidf("Keyspace '%s' doesn't exist", s.Name)
	}
	return &Change{Type: ChangeDropped, Target: TargetKeyspace, Keyspace: s.Name}, nil
}

// tableKeyspace resolves the keyspace of a table statement and runs the
// keyspace-name checks.
func tableKeyspace(ks, current string) (string, *Error) {
	if ks == "" {
		ks = current
	}
	if ks == "" {
		return "", invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	if err := checkKeyspaceName(ks); err != nil {
		return "", err
	}
	if err := replicatedSystem(ks); err != nil {
		return "", err
	}
	return ks, nil
}

// withTable returns a copy of ks with table t set (or removed when t is nil).
func withTable(ks *Keyspace, name string, t *Table) *Keyspace {
	n := *ks
	n.Tables = maps.Clone(ks.Tables)
	if n.Tables == nil {
		n.Tables = map[string]*Table{}
	}
	if t == nil {
		delete(n.Tables, name)
	} else {
		n.Tables[name] = t
	}
	return &n
}
