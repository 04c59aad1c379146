package graphql

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/graphql-go/graphql"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// The /graphql-schema API, as Stargate's DdlSchemaBuilder: queries that
// describe keyspaces and tables, mutations that run DDL.

var basicTypes = []string{
	"CUSTOM", "INT", "TIMEUUID", "TIMESTAMP", "UDT", "BIGINT", "TIME", "DURATION", "VARINT", "UUID",
	"BOOLEAN", "TINYINT", "SMALLINT", "INET", "ASCII", "DECIMAL", "BLOB", "LIST", "MAP", "VARCHAR",
	"TUPLE", "DOUBLE", "COUNTER", "DATE", "TEXT", "FLOAT", "SET",
}

// runDDL executes one DDL statement in the request's session.
func (s *Server) runDDL(ctx context.Context, q string) error {
	rs, err := stateFrom(ctx)
	if err != nil {
		return err
	}
	_, err = rs.session.Query(ctx, &bindings.Request{Query: q, Consistency: bindings.LocalQuorum})
	return err
}

// keyspaceDCs lists the per-datacenter replication of a keyspace (empty
// for SimpleStrategy).
func keyspaceDCs(ks *schema.Keyspace) []any {
	var names []string
	for k := range ks.Replication {
		if k != "class" && k != "replication_factor" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	out := []any{}
	for _, n := range names {
		rf, _ := strconv.Atoi(ks.Replication[n])
		out = append(out, map[string]any{"name": n, "replicas": rf})
	}
	return out
}

// describeTable lists a table's columns as Stargate's KeyspaceDto does.
func describeTable(t *schema.Table) map[string]any {
	kinds := map[schema.ColumnKind]string{
		schema.PartitionKey: "PARTITION", schema.Clustering: "CLUSTERING",
		schema.Regular: "REGULAR", schema.Static: "STATIC",
	}
	cols := []any{}
	for _, c := range stargateColumnOrder(t) {
		cols = append(cols, map[string]any{"kind": kinds[c.Kind], "name": c.Name, "type": describeType(c.Type)})
	}
	return map[string]any{"name": t.Name, "columns": cols}
}

func describeType(t *cql.Type) map[string]any {
	sub := func(basic string, frozen bool, elems []*cql.Type) map[string]any {
		subs := make([]any, len(elems))
		for i, e := range elems {
			subs[i] = describeType(e)
		}
		return map[string]any{"basic": basic, "info": map[string]any{"subTypes": subs, "frozen": frozen}}
	}
	switch t.Kind {
	case cql.KindUDT:
		return map[string]any{"basic": "UDT", "info": map[string]any{"name": t.Name, "frozen": t.Frozen}}
	case cql.KindList:
		return sub("LIST", t.Frozen, t.Elems)
	case cql.KindSet:
		return sub("SET", t.Frozen, t.Elems)
	case cql.KindMap:
		return sub("MAP", t.Frozen, t.Elems)
	case cql.KindTuple:
		return sub("TUPLE", true, t.Elems)
	}
	return map[string]any{"basic": strings.ToUpper(t.Kind.String())}
}

// decodeType renders a DataTypeInput as CQL type text.
func decodeType(v any) (string, error) {
	m, _ := v.(map[string]any)
	basic, _ := m["basic"].(string)
	info, hasInfo := m["info"].(map[string]any)
	name, _ := info["name"].(string)
	subs, _ := info["subTypes"].([]any)
	frozen, _ := info["frozen"].(bool)
	wrap := func(s string) string {
		if frozen {
			return "frozen<" + s + ">"
		}
		return s
	}
	switch basic {
	case "INT", "INET", "TIMEUUID", "TIMESTAMP", "BIGINT", "TIME", "DURATION", "VARINT", "UUID", "BOOLEAN",
		"TINYINT", "SMALLINT", "ASCII", "DECIMAL", "BLOB", "VARCHAR", "TEXT", "DOUBLE", "COUNTER", "DATE", "FLOAT":
		return strings.ToLower(basic), nil
	case "LIST", "SET":
		kind := strings.ToLower(basic)
		title := strings.ToUpper(kind[:1]) + kind[1:]
		if !hasInfo {
			return "", fmt.Errorf("%s type should contain an 'info' field specifying the sub type", title)
		}
		if len(subs) != 1 {
			return "", fmt.Errorf("%s sub types should contain 1 item", title)
		}
		e, err := decodeType(subs[0])
		if err != nil {
			return "", err
		}
		return wrap(kind + "<" + e + ">"), nil
	case "MAP":
		if !hasInfo {
			return "", errors.New("Map type should contain an 'info' field specifying the sub types")
		}
		if len(subs) != 2 {
			return "", errors.New("Map sub types should contain 2 items")
		}
		k, err := decodeType(subs[0])
		if err != nil {
			return "", err
		}
		val, err := decodeType(subs[1])
		if err != nil {
			return "", err
		}
		return wrap("map<" + k + ", " + val + ">"), nil
	case "UDT":
		if name == "" {
			return "", errors.New("UDT type should contain an 'info' field specifying the UDT name")
		}
		return wrap(`"` + strings.ReplaceAll(name, `"`, `""`) + `"`), nil
	case "TUPLE":
		if !hasInfo {
			return "", errors.New("TUPLE type should contain an 'info' field specifying the sub types")
		}
		if len(subs) == 0 {
			return "", errors.New("TUPLE type should have at least one sub type")
		}
		parts := make([]string, len(subs))
		for i, sv := range subs {
			p, err := decodeType(sv)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return "frozen<tuple<" + strings.Join(parts, ", ") + ">>", nil
	}
	return "", fmt.Errorf("Data type %s is not supported", basic)
}

func qualified(a map[string]any, nameArg string) string {
	ks, _ := a["keyspaceName"].(string)
	name, _ := a[nameArg].(string)
	return cql.QuoteIdent(ks) + "." + cql.QuoteIdent(name)
}

func ifExists(a map[string]any) string {
	if argBool(a, "ifExists") {
		return "IF EXISTS "
	}
	return ""
}

func ifNotExists(a map[string]any) string {
	if argBool(a, "ifNotExists") {
		return "IF NOT EXISTS "
	}
	return ""
}

// columnDefs renders ColumnInput values as "name type" definitions.
func columnDefs(v any) ([]string, []string, error) {
	list, _ := v.([]any)
	var defs, names []string
	for _, item := range list {
		m, _ := item.(map[string]any)
		name, _ := m["name"].(string)
		t, err := decodeType(m["type"])
		if err != nil {
			return nil, nil, err
		}
		defs = append(defs, cql.QuoteIdent(name)+" "+t)
		names = append(names, cql.QuoteIdent(name))
	}
	return defs, names, nil
}

func buildCreateTable(a map[string]any) (string, error) {
	pkDefs, pkNames, err := columnDefs(a["partitionKeys"])
	if err != nil {
		return "", err
	}
	if len(pkDefs) == 0 {
		return "", errors.New("partitionKeys must contain at least one element")
	}
	ckDefs, ckNames, err := columnDefs(a["clusteringKeys"])
	if err != nil {
		return "", err
	}
	var orders []string
	cks, _ := a["clusteringKeys"].([]any)
	for i, ck := range cks {
		m, _ := ck.(map[string]any)
		order := "ASC"
		if o, ok := m["order"].(string); ok {
			order = strings.ToUpper(o)
			if order != "ASC" && order != "DESC" {
				return "", fmt.Errorf("Invalid clustering order '%s', expected ASC or DESC", o)
			}
		}
		orders = append(orders, ckNames[i]+" "+order)
	}
	valDefs, _, err := columnDefs(a["values"])
	if err != nil {
		return "", err
	}
	defs := append(append(append([]string{}, pkDefs...), ckDefs...), valDefs...)
	key := "(" + strings.Join(pkNames, ", ") + ")"
	if len(ckNames) > 0 {
		key += ", " + strings.Join(ckNames, ", ")
	}
	q := "CREATE TABLE " + ifNotExists(a) + qualified(a, "tableName") + " (" + strings.Join(defs, ", ") +
		", PRIMARY KEY (" + key + "))"
	if len(orders) > 0 {
		q += " WITH CLUSTERING ORDER BY (" + strings.Join(orders, ", ") + ")"
	}
	return q, nil
}

func buildAlterTableAdd(a map[string]any) (string, error) {
	defs, _, err := columnDefs(a["toAdd"])
	if err != nil {
		return "", err
	}
	if len(defs) == 0 {
		return "", errors.New("toAdd must contain at least one element")
	}
	return "ALTER TABLE " + qualified(a, "tableName") + " ADD (" + strings.Join(defs, ", ") + ")", nil
}

func buildAlterTableDrop(a map[string]any) (string, error) {
	list, _ := a["toDrop"].([]any)
	var names []string
	for _, n := range list {
		if s, ok := n.(string); ok {
			names = append(names, cql.QuoteIdent(s))
		}
	}
	if len(names) == 0 {
		return "", errors.New("toDrop must contain at least one element")
	}
	return "ALTER TABLE " + qualified(a, "tableName") + " DROP (" + strings.Join(names, ", ") + ")", nil
}

func buildCreateType(a map[string]any) (string, error) {
	defs, _, err := columnDefs(a["fields"])
	if err != nil {
		return "", err
	}
	if len(defs) == 0 {
		return "", errors.New("fields must contain at least one element")
	}
	return "CREATE TYPE " + ifNotExists(a) + qualified(a, "typeName") + " (" + strings.Join(defs, ", ") + ")", nil
}

func buildCreateIndex(a map[string]any) (string, error) {
	col, _ := a["columnName"].(string)
	target := cql.QuoteIdent(col)
	if kind, ok := a["indexKind"].(string); ok {
		target = kind + "(" + target + ")"
	}
	q := "CREATE "
	if it, ok := a["indexType"].(string); ok && it != "" {
		q += "CUSTOM "
	}
	q += "INDEX " + ifNotExists(a)
	if name, ok := a["indexName"].(string); ok && name != "" {
		q += cql.QuoteIdent(name) + " "
	}
	q += "ON " + qualified(a, "tableName") + " (" + target + ")"
	if it, ok := a["indexType"].(string); ok && it != "" {
		q += " USING '" + strings.ReplaceAll(it, "'", "''") + "'"
	}
	return q, nil
}

func buildCreateKeyspace(a map[string]any) (string, error) {
	name, _ := a["name"].(string)
	replicas, hasReplicas := a["replicas"].(int)
	dcs, hasDCs := a["datacenters"].([]any)
	switch {
	case !hasReplicas && !hasDCs:
		return "", errors.New("You must specify either replicas or datacenters")
	case hasReplicas && hasDCs:
		return "", errors.New("You can't specify both replicas and datacenters")
	}
	var repl string
	if hasReplicas {
		repl = fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", replicas)
	} else {
		if len(dcs) == 0 {
			return "", errors.New("datacenters must contain at least one element")
		}
		parts := []string{"'class': 'NetworkTopologyStrategy'"}
		for _, dc := range dcs {
			m, _ := dc.(map[string]any)
			dcName, _ := m["name"].(string)
			rf, ok := m["replicas"].(int)
			if !ok {
				rf = 3
			}
			parts = append(parts, fmt.Sprintf("'%s': %d", strings.ReplaceAll(dcName, "'", "''"), rf))
		}
		repl = "{" + strings.Join(parts, ", ") + "}"
	}
	return "CREATE KEYSPACE " + ifNotExists(a) + cql.QuoteIdent(name) + " WITH replication = " + repl, nil
}

// ddlPermissions is what each DDL mutation needs, as Cassandra's
// CassandraAuthorizer asks for the statement it runs: the resource comes
// from the mutation's arguments. DROP INDEX needs ALTER on the keyspace
// (the index's table is not among the arguments).
var ddlPermissions = map[string]struct {
	perm  auth.Permission
	table string // argument naming the table; "" for keyspace resources
	ks    string // argument naming the keyspace; "" for all keyspaces
}{
	"createTable":    {auth.Create, "", "keyspaceName"},
	"alterTableAdd":  {auth.Alter, "tableName", "keyspaceName"},
	"alterTableDrop": {auth.Alter, "tableName", "keyspaceName"},
	"dropTable":      {auth.Drop, "tableName", "keyspaceName"},
	"createType":     {auth.Create, "", "keyspaceName"},
	"dropType":       {auth.Drop, "", "keyspaceName"},
	"createIndex":    {auth.Alter, "tableName", "keyspaceName"},
	"dropIndex":      {auth.Alter, "", "keyspaceName"},
	"createKeyspace": {auth.Create, "", ""},
	"dropKeyspace":   {auth.Drop, "", "name"},
}

// guardDDL makes every DDL mutation ask the Authorizer first; a mutation
// without an entry in ddlPermissions is a build error, so none is
// forgotten.
func (s *Server) guardDDL(mutation graphql.Fields) error {
	for name, f := range mutation {
		need, ok := ddlPermissions[name]
		if !ok {
			return fmt.Errorf("DDL mutation %s has no permission", name)
		}
		next := f.Resolve
		f.Resolve = func(p graphql.ResolveParams) (any, error) {
			res := auth.AllKeyspaces()
			ks, _ := p.Args[need.ks].(string)
			table, _ := p.Args[need.table].(string)
			switch {
			case need.table != "":
				res = auth.TableResource(ks, table)
			case need.ks != "":
				res = auth.KeyspaceResource(ks)
			}
			if err := s.authorize(p.Context, need.perm, res); err != nil {
				return nil, wrapCQLError(err)
			}
			return next(p)
		}
	}
	return nil
}

// keyspaceNames lists the catalog's keyspaces and the system keyspaces,
// sorted (a catalog keyspace wins over a system one of the same name).
func (s *Server) keyspaceNames(cat *schema.Catalog) []string {
	names := cat.KeyspaceNames()
	for n := range s.cfg.SystemKeyspaces {
		if cat.Keyspace(n) == nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
