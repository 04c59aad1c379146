package graphql

import (
	"github.com/graphql-go/graphql"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// buildDDL generates the /graphql-schema schema: the keyspace queries and
// the DDL mutations, each mutation guarded by the authorizer.
func (s *Server) buildDDL() (graphql.Schema, error) {
	basic := newEnum("BasicType", "", basicTypes...)
	mutation := s.ddlMutations(newDDLInputs(basic))
	if err := s.guardDDL(mutation); err != nil {
		return graphql.Schema{}, err
	}
	query := s.ddlQueries(ddlKeyspaceType(basic))
	return graphql.NewSchema(graphql.SchemaConfig{
		Query:    graphql.NewObject(graphql.ObjectConfig{Name: "Query", Fields: query}),
		Mutation: graphql.NewObject(graphql.ObjectConfig{Name: "Mutation", Fields: mutation}),
	})
}

// nameArg is the single required name argument of keyspace, table and
// type lookups.
func nameArg() graphql.FieldConfigArgument {
	return graphql.FieldConfigArgument{"name": {Type: graphql.NewNonNull(graphql.String)}}
}

// ddlKeyspaceType is the Keyspace output type with its tables and
// user-defined types (Stargate's KeyspaceDto, TableDto, UdtDto).
func ddlKeyspaceType(basic *graphql.Enum) *graphql.Object {
	columnKind := newEnum("ColumnKind", "", "COMPACT", "UNKNOWN", "PARTITION", "CLUSTERING", "REGULAR", "STATIC")
	dataType := graphql.NewObject(graphql.ObjectConfig{Name: "DataType", FieldOrder: []string{"basic", "info"}, Fields: graphql.Fields{}})
	dataTypeInfo := graphql.NewObject(graphql.ObjectConfig{
		Name:       "DataTypeInfo",
		FieldOrder: []string{"name", "subTypes", "frozen"},
		Fields: graphql.Fields{
			"name":     {Type: graphql.String},
			"subTypes": {Type: graphql.NewList(dataType)},
			"frozen":   {Type: graphql.Boolean},
		},
	})
	dataType.AddFieldConfig("basic", &graphql.Field{Type: graphql.NewNonNull(basic)})
	dataType.AddFieldConfig("info", &graphql.Field{Type: dataTypeInfo})

	column := graphql.NewObject(graphql.ObjectConfig{
		Name:       "Column",
		FieldOrder: []string{"name", "kind", "type"},
		Fields: graphql.Fields{
			"kind": {Type: columnKind},
			"name": {Type: graphql.NewNonNull(graphql.String)},
			"type": {Type: graphql.NewNonNull(dataType)},
		},
	})
	table := graphql.NewObject(graphql.ObjectConfig{
		Name:       "Table",
		FieldOrder: []string{"name", "columns"},
		Fields: graphql.Fields{
			"columns": {Type: graphql.NewList(column)},
			"name":    {Type: graphql.NewNonNull(graphql.String)},
		},
	})
	udtField := graphql.NewObject(graphql.ObjectConfig{
		Name:       "Field",
		FieldOrder: []string{"name", "type"},
		Fields: graphql.Fields{
			"name": {Type: graphql.NewNonNull(graphql.String)},
			"type": {Type: graphql.NewNonNull(dataType)},
		},
	})
	udt := graphql.NewObject(graphql.ObjectConfig{
		Name:       "Type",
		FieldOrder: []string{"name", "fields"},
		Fields: graphql.Fields{
			"fields": {Type: graphql.NewList(udtField)},
			"name":   {Type: graphql.NewNonNull(graphql.String)},
		},
	})
	dataCenter := graphql.NewObject(graphql.ObjectConfig{
		Name:       "DataCenter",
		FieldOrder: []string{"name", "replicas"},
		Fields: graphql.Fields{
			"name":     {Type: graphql.NewNonNull(graphql.String)},
			"replicas": {Type: graphql.NewNonNull(graphql.Int)},
		},
	})
	return graphql.NewObject(graphql.ObjectConfig{
		Name:       "Keyspace",
		FieldOrder: []string{"name", "dcs", "tables", "table", "types", "type"},
		Fields: graphql.Fields{
			"dcs": {Type: graphql.NewList(dataCenter), Resolve: func(p graphql.ResolveParams) (any, error) {
				return keyspaceDCs(p.Source.(*schema.Keyspace)), nil
			}},
			"name": {Type: graphql.NewNonNull(graphql.String), Resolve: func(p graphql.ResolveParams) (any, error) {
				return p.Source.(*schema.Keyspace).Name, nil
			}},
			"table": {Type: table, Args: nameArg(), Resolve: func(p graphql.ResolveParams) (any, error) {
				name, _ := p.Args["name"].(string)
				if t := p.Source.(*schema.Keyspace).Tables[name]; t != nil {
					return describeTable(t), nil
				}
				return nil, nil
			}},
			"tables": {Type: graphql.NewList(table), Resolve: func(p graphql.ResolveParams) (any, error) {
				ks := p.Source.(*schema.Keyspace)
				out := []any{}
				for _, n := range ks.TableNames() {
					out = append(out, describeTable(ks.Tables[n]))
				}
				return out, nil
			}},
			"type": {Type: udt, Args: nameArg(), Resolve: func(p graphql.ResolveParams) (any, error) {
				name, _ := p.Args["name"].(string)
				if ut := p.Source.(*schema.Keyspace).Types[name]; ut != nil {
					return describeUserType(ut), nil
				}
				return nil, nil
			}},
			"types": {Type: graphql.NewList(udt), Resolve: func(p graphql.ResolveParams) (any, error) {
				ks := p.Source.(*schema.Keyspace)
				out := []any{}
				for _, n := range ks.TypeNames() {
					out = append(out, describeUserType(ks.Types[n]))
				}
				return out, nil
			}},
		},
	})
}

// describeUserType lists a user-defined type's fields in declaration
// order, as Stargate's UdtDto does.
func describeUserType(ut *schema.UserType) map[string]any {
	fields := make([]any, len(ut.FieldNames))
	for i, n := range ut.FieldNames {
		fields[i] = map[string]any{"name": n, "type": describeType(ut.FieldTypes[i])}
	}
	return map[string]any{"name": ut.Name, "fields": fields}
}

// ddlInputs are the input types of the DDL mutations' arguments.
type ddlInputs struct {
	column, clusteringKey, dataCenter *graphql.InputObject
	indexKind                         *graphql.Enum
}

func newDDLInputs(basic *graphql.Enum) ddlInputs {
	dataTypeInput := graphql.NewInputObject(graphql.InputObjectConfig{Name: "DataTypeInput", FieldOrder: []string{"basic", "info"}, Fields: graphql.InputObjectConfigFieldMap{}})
	dataTypeInfoInput := graphql.NewInputObject(graphql.InputObjectConfig{
		Name:       "DataTypeInfoInput",
		FieldOrder: []string{"name", "subTypes", "frozen"},
		Fields: graphql.InputObjectConfigFieldMap{
			"subTypes": {Type: graphql.NewList(dataTypeInput)},
			"name":     {Type: graphql.String},
			"frozen":   {Type: graphql.Boolean},
		},
	})
	dataTypeInput.AddFieldConfig("info", &graphql.InputObjectFieldConfig{Type: dataTypeInfoInput})
	dataTypeInput.AddFieldConfig("basic", &graphql.InputObjectFieldConfig{Type: graphql.NewNonNull(basic)})
	return ddlInputs{
		column: graphql.NewInputObject(graphql.InputObjectConfig{
			Name: "ColumnInput",
			Fields: graphql.InputObjectConfigFieldMap{
				"name": {Type: graphql.NewNonNull(graphql.String)},
				"type": {Type: graphql.NewNonNull(dataTypeInput)},
			},
		}),
		clusteringKey: graphql.NewInputObject(graphql.InputObjectConfig{
			Name:       "ClusteringKeyInput",
			FieldOrder: []string{"name", "type", "order"},
			Fields: graphql.InputObjectConfigFieldMap{
				"name":  {Type: graphql.NewNonNull(graphql.String)},
				"type":  {Type: graphql.NewNonNull(dataTypeInput)},
				"order": {Type: graphql.String},
			},
		}),
		dataCenter: graphql.NewInputObject(graphql.InputObjectConfig{
			Name:        "DataCenterInput",
			Description: "The DC-level replication options passed to 'createKeyspace.datacenters'.",
			Fields: graphql.InputObjectConfigFieldMap{
				"name":     {Type: graphql.NewNonNull(graphql.String), Description: "The name of the datacenter."},
				"replicas": {Type: graphql.Int, Description: "The replication factor for this datacenter."},
			},
		}),
		indexKind: newEnum("IndexKind", "", "KEYS", "VALUES", "ENTRIES", "FULL"),
	}
}

// ddlResolver runs the statement build makes of a mutation's arguments in
// the request's session.
func (s *Server) ddlResolver(build func(map[string]any) (string, error)) graphql.FieldResolveFn {
	return withCQLErrors(func(p graphql.ResolveParams) (any, error) {
		q, err := build(p.Args)
		if err != nil {
			return nil, err
		}
		if err := s.runDDL(p.Context, q); err != nil {
			return nil, err
		}
		return true, nil
	})
}

// ddlMutation is one DDL mutation field: its arguments in declared order
// and the CQL statement it issues.
func (s *Server) ddlMutation(desc string, args graphql.FieldConfigArgument, order []string, build func(map[string]any) (string, error)) *graphql.Field {
	return &graphql.Field{Type: graphql.Boolean, Description: desc, ArgOrder: order, Args: args, Resolve: s.ddlResolver(build)}
}

// ddlMutations are the DDL mutations, as Stargate's DdlSchemaBuilder
// declares them.
func (s *Server) ddlMutations(in ddlInputs) graphql.Fields {
	str := graphql.NewNonNull(graphql.String)
	columns := graphql.NewNonNull(graphql.NewList(in.column))
	dropStmt := func(kind, nameArg string) func(map[string]any) (string, error) {
		return func(a map[string]any) (string, error) {
			return "DROP " + kind + " " + ifExists(a) + qualified(a, nameArg), nil
		}
	}
	return graphql.Fields{
		"createTable": s.ddlMutation("", graphql.FieldConfigArgument{
			"keyspaceName":   {Type: str},
			"tableName":      {Type: str},
			"partitionKeys":  {Type: columns},
			"clusteringKeys": {Type: graphql.NewList(in.clusteringKey)},
			"values":         {Type: graphql.NewList(in.column)},
			"ifNotExists":    {Type: graphql.Boolean},
		}, []string{"keyspaceName", "tableName", "partitionKeys", "clusteringKeys", "values", "ifNotExists"}, buildCreateTable),
		"alterTableAdd": s.ddlMutation("", graphql.FieldConfigArgument{
			"keyspaceName": {Type: str},
			"tableName":    {Type: str},
			"toAdd":        {Type: columns},
		}, []string{"keyspaceName", "tableName", "toAdd"}, buildAlterTableAdd),
		"alterTableDrop": s.ddlMutation("", graphql.FieldConfigArgument{
			"keyspaceName": {Type: str},
			"tableName":    {Type: str},
			"toDrop":       {Type: graphql.NewNonNull(graphql.NewList(graphql.String))},
		}, []string{"keyspaceName", "tableName", "toDrop"}, buildAlterTableDrop),
		"dropTable": s.ddlMutation("", graphql.FieldConfigArgument{
			"keyspaceName": {Type: str},
			"tableName":    {Type: str},
			"ifExists":     {Type: graphql.Boolean},
		}, []string{"keyspaceName", "tableName", "ifExists"}, dropStmt("TABLE", "tableName")),
		"createType": s.ddlMutation("", graphql.FieldConfigArgument{
			"keyspaceName": {Type: str},
			"typeName":     {Type: str},
			"fields":       {Type: columns},
			"ifNotExists":  {Type: graphql.Boolean},
		}, []string{"keyspaceName", "typeName", "fields", "ifNotExists"}, buildCreateType),
		"dropType": s.ddlMutation("", graphql.FieldConfigArgument{
			"keyspaceName": {Type: str},
			"typeName":     {Type: str},
			"ifExists":     {Type: graphql.Boolean},
		}, []string{"keyspaceName", "typeName", "ifExists"}, dropStmt("TYPE", "typeName")),
		"createIndex": s.ddlMutation("", graphql.FieldConfigArgument{
			"keyspaceName": {Type: str},
			"tableName":    {Type: str},
			"columnName":   {Type: str},
			"indexName":    {Type: graphql.String},
			"indexType": {Type: graphql.String, Description: "Adds a custom index type that can be identified by name " +
				"(e.g., StorageAttachedIndex), or class name (e.g., org.apache.cassandra.index.sasi.SASIIndex) "},
			"ifNotExists": {Type: graphql.Boolean},
			"indexKind": {Type: in.indexKind, Description: "KEYS (indexes keys of a map), ENTRIES (index entries of a map), " +
				"VALUES (index values of a collection), FULL (full index of a frozen collection)"},
		}, []string{"keyspaceName", "tableName", "columnName", "indexName", "indexType", "ifNotExists", "indexKind"}, buildCreateIndex),
		"dropIndex": s.ddlMutation("", graphql.FieldConfigArgument{
			"keyspaceName": {Type: str},
			"indexName":    {Type: str},
			"ifExists":     {Type: graphql.Boolean},
		}, []string{"keyspaceName", "indexName", "ifExists"}, dropStmt("INDEX", "indexName")),
		"createKeyspace": s.ddlMutation("Creates a new CQL keyspace", graphql.FieldConfigArgument{
			"name": {Type: str, Description: "The name of the keyspace"},
			"ifNotExists": {Type: graphql.Boolean, Description: "Whether the operation will succeed if the keyspace " +
				"already exists. Defaults to false if absent."},
			"replicas": {Type: graphql.Int, Description: "Enables SimpleStrategy replication with the given " +
				"replication factor. You must specify either this or 'datacenters', but not both."},
			"datacenters": {Type: graphql.NewList(in.dataCenter), Description: "Enables NetworkTopologyStrategy " +
				"with the given replication factors per DC. (at least one DC must be specified).You must specify " +
				"either this or 'replicas', but not both."},
		}, []string{"name", "ifNotExists", "replicas", "datacenters"}, buildCreateKeyspace),
		"dropKeyspace": s.ddlMutation("Drops a CQL keyspace", graphql.FieldConfigArgument{
			"name": {Type: str, Description: "The name of the keyspace"},
			"ifExists": {Type: graphql.Boolean, Description: "Whether the operation will succeed if the keyspace " +
				"does not exist. Defaults to false if absent."},
		}, []string{"name", "ifExists"}, func(a map[string]any) (string, error) {
			name, _ := a["name"].(string)
			return "DROP KEYSPACE " + ifExists(a) + cql.QuoteIdent(name), nil
		}),
	}
}

// ddlQueries are the keyspace lookups: user keyspaces from the catalog,
// then the system keyspaces dohyo serves itself.
func (s *Server) ddlQueries(keyspace *graphql.Object) graphql.Fields {
	return graphql.Fields{
		"keyspace": {
			Type: keyspace,
			Args: graphql.FieldConfigArgument{"name": {Type: graphql.NewNonNull(graphql.String)}},
			Resolve: func(p graphql.ResolveParams) (any, error) {
				cat, err := s.cfg.Coordinator.Catalog(p.Context)
				if err != nil {
					return nil, err
				}
				name, _ := p.Args["name"].(string)
				if ks := cat.Keyspace(name); ks != nil {
					return ks, nil
				}
				if ks := s.cfg.SystemKeyspaces[name]; ks != nil {
					return ks, nil
				}
				return nil, nil
			},
		},
		"keyspaces": {
			Type: graphql.NewList(keyspace),
			Resolve: func(p graphql.ResolveParams) (any, error) {
				cat, err := s.cfg.Coordinator.Catalog(p.Context)
				if err != nil {
					return nil, err
				}
				out := []any{}
				for _, n := range s.keyspaceNames(cat) {
					if ks := cat.Keyspace(n); ks != nil {
						out = append(out, ks)
					} else {
						out = append(out, s.cfg.SystemKeyspaces[n])
					}
				}
				return out, nil
			},
		},
	}
}
