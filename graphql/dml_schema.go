package graphql

import (
	"context"
	"fmt"
	"strings"

	"github.com/graphql-go/graphql"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// dmlSchema is the generated GraphQL schema of one keyspace
// (/graphql/{keyspace}), with what its resolvers need.
type dmlSchema struct {
	keyspace string
	ks       *schema.Keyspace // the catalog snapshot it was built from
	sig      string           // keyspaceSignature(ks)
	schema   graphql.Schema
	names    *nameMapping
	warnings []string
	prep     *prepCache
	tables   map[string]*tableInfo // by GraphQL name
	docs     *docCache
}

// tableInfo is one table as its resolvers see it.
type tableInfo struct {
	t      *schema.Table
	ref    string // keyspace.table, quoted as CQL needs
	gname  string
	cols   []*schema.Column          // mapped columns, Stargate order
	fields map[string]*schema.Column // GraphQL field name -> column
	fname  map[string]string         // CQL column -> GraphQL field name
	ks     *schema.Keyspace          // its keyspace (user-defined aggregates)
	// authorize is the GraphQL-level permission check of the table's
	// fields (for every resolver and compiled plan).
	authorize func(ctx context.Context, perm auth.Permission) error
}

func (ti *tableInfo) isPrimaryKey(c *schema.Column) bool {
	return c.Kind == schema.PartitionKey || c.Kind == schema.Clustering
}

// sharedTypes are the option types every keyspace schema uses; built once
// per server (graphql-go types are immutable once built).
type sharedTypes struct {
	queryOptions    *graphql.InputObject
	mutationOptions *graphql.InputObject
	atomic, async   *graphql.Directive
}

func newSharedTypes(defaultPageSize int) *sharedTypes {
	queryConsistency := newEnum("QueryConsistency", "", "LOCAL_ONE", "LOCAL_QUORUM", "ALL", "SERIAL", "LOCAL_SERIAL")
	mutationConsistency := newEnum("MutationConsistency", "", "LOCAL_ONE", "LOCAL_QUORUM", "ALL")
	serialConsistency := newEnum("SerialConsistency", "", "SERIAL", "LOCAL_SERIAL")
	return &sharedTypes{
		queryOptions: graphql.NewInputObject(graphql.InputObjectConfig{
			Name:        "QueryOptions",
			Description: "The execution options for the query.",
			FieldOrder:  []string{"consistency", "limit", "pageSize", "pageState"},
			Fields: graphql.InputObjectConfigFieldMap{
				"consistency": {Type: queryConsistency, DefaultValue: "LOCAL_QUORUM"},
				"limit":       {Type: graphql.Int},
				"pageSize":    {Type: graphql.Int, DefaultValue: defaultPageSize},
				"pageState":   {Type: graphql.String},
			},
		}),
		mutationOptions: graphql.NewInputObject(graphql.InputObjectConfig{
			Name:        "MutationOptions",
			Description: "The execution options for the mutation.",
			FieldOrder:  []string{"consistency", "serialConsistency", "ttl"},
			Fields: graphql.InputObjectConfigFieldMap{
				"consistency":       {Type: mutationConsistency, DefaultValue: "LOCAL_QUORUM"},
				"serialConsistency": {Type: serialConsistency, DefaultValue: "SERIAL"},
				"ttl":               {Type: graphql.Int},
			},
		}),
		atomic: graphql.NewDirective(graphql.DirectiveConfig{
			Name:        "atomic",
			Description: "Instructs the server to apply the mutations in a LOGGED batch",
			Locations:   []string{graphql.DirectiveLocationMutation},
		}),
		async: graphql.NewDirective(graphql.DirectiveConfig{
			Name:        "async",
			Description: "Instructs the server to apply the mutations asynchronously without waiting for the result.",
			Locations:   []string{graphql.DirectiveLocationMutation},
		}),
	}
}

// newEnum builds an enum whose values are their names, and warms its
// lazily built lookup maps so concurrent requests never write them.
func newEnum(name, desc string, values ...string) *graphql.Enum {
	cfg := graphql.EnumValueConfigMap{}
	for _, v := range values {
		cfg[v] = &graphql.EnumValueConfig{Value: v}
	}
	e := graphql.NewEnum(graphql.EnumConfig{Name: name, Description: desc, Values: cfg, ValueOrder: values})
	e.ParseValue(values[0])
	e.Serialize(values[0])
	return e
}

// buildDML generates the schema of keyspace ks.
func (s *Server) buildDML(ks *schema.Keyspace) (*dmlSchema, error) {
	d := &dmlSchema{keyspace: ks.Name, ks: ks, names: newNameMapping(ks), prep: newPrepCache(1024), tables: map[string]*tableInfo{},
		docs: newDocCache(docCacheSize)}
	d.warnings = append(d.warnings, d.names.warnings...)
	types := newTypeCache(s.scalars, &d.warnings)

	queryFields := graphql.Fields{}
	deprecated := graphql.Fields{} // <table>Filter: only where no table owns the name
	mutationFields := graphql.Fields{}
	// Introspection lists fields in table order, then each table's fields
	// in the order buildTable declares them.
	var queryOrder, mutationOrder []string
	for _, tname := range ks.TableNames() {
		gname := d.names.table(tname)
		if gname == "" {
			continue // name clash, already warned
		}
		ti, q, m, err := s.buildTable(d, types, ks.Tables[tname], gname)
		if err != nil {
			d.warnings = append(d.warnings, fmt.Sprintf("Could not convert table %s, skipping (%v)", tname, err))
			continue
		}
		d.tables[gname] = ti
		for _, k := range q.order {
			queryOrder = append(queryOrder, k)
			if v := q.fields[k]; v.DeprecationReason != "" {
				deprecated[k] = v
			} else {
				queryFields[k] = v
			}
		}
		for _, k := range m.order {
			mutationOrder = append(mutationOrder, k)
			mutationFields[k] = m.fields[k]
		}
	}
	for k, v := range deprecated {
		if _, taken := queryFields[k]; !taken {
			queryFields[k] = v
		}
	}
	queryFields["conversionWarnings"] = &graphql.Field{
		Type:        graphql.NewList(graphql.String),
		Description: warningsDescription(d.warnings),
		Resolve: func(graphql.ResolveParams) (any, error) {
			return append([]string{}, d.warnings...), nil
		},
	}
	if len(mutationFields) == 0 {
		mutationFields["keyspaceEmptyMutation"] = &graphql.Field{
			Type:        graphql.Boolean,
			Description: "Placeholder mutation that is exposed when a keyspace is empty.",
			Resolve:     func(graphql.ResolveParams) (any, error) { return true, nil },
		}
	}
	// Scalars appear only when a column uses them (as in Stargate).
	extra := []graphql.Type{s.shared.queryOptions}
	sch, err := graphql.NewSchema(graphql.SchemaConfig{
		Query:      graphql.NewObject(graphql.ObjectConfig{Name: "Query", Fields: queryFields, FieldOrder: queryOrder}),
		Mutation:   graphql.NewObject(graphql.ObjectConfig{Name: "Mutation", Fields: mutationFields, FieldOrder: mutationOrder}),
		Types:      extra,
		Directives: append(append([]*graphql.Directive{}, graphql.SpecifiedDirectives...), s.shared.atomic, s.shared.async),
	})
	if err != nil {
		return nil, fmt.Errorf("graphql schema of keyspace %s: %w", ks.Name, err)
	}
	d.schema = sch
	return d, nil
}

func warningsDescription(warnings []string) string {
	var sb strings.Builder
	sb.WriteString("Warnings encountered during the CQL to GraphQL conversion.")
	if len(warnings) == 0 {
		sb.WriteString("\nNo warnings found, this will return an empty list.")
		return sb.String()
	}
	sb.WriteString("\nThis will return:")
	for _, w := range warnings {
		sb.WriteString("\n- " + w)
	}
	return sb.String()
}

// buildTable generates the types, the query fields and the mutation fields
// of one table.
func (s *Server) buildTable(d *dmlSchema, types *typeCache, t *schema.Table, gname string) (*tableInfo, orderedFields, orderedFields, error) {
	ti := &tableInfo{t: t, ref: cql.QuoteIdent(t.Keyspace) + "." + cql.QuoteIdent(t.Name), gname: gname, fields: map[string]*schema.Column{}, fname: map[string]string{}, ks: d.ks}
	cf := columnFields(d, types, ti)
	for _, c := range append(append([]*schema.Column{}, t.PartitionKey...), t.Clustering...) {
		if ti.fname[c.Name] == "" {
			return nil, orderedFields{}, orderedFields{}, fmt.Errorf("primary key column %s cannot be represented", c.Name)
		}
	}
	tt, err := s.newTableTypes(types, ti, cf)
	if err != nil {
		return nil, orderedFields{}, orderedFields{}, err
	}
	s.setTableAuthorizer(ti)
	queries := orderedFields{s.tableQueries(d, ti, tt), []string{gname, gname + "Filter"}}
	if t.IsView() {
		// A materialized view is read-only (Cassandra refuses writes to
		// it): queries, no mutations.
		return ti, queries, orderedFields{graphql.Fields{}, nil}, nil
	}
	return ti, queries, orderedFields{s.tableMutations(d, ti, tt),
		[]string{"insert" + gname, "update" + gname, "delete" + gname, "bulkInsert" + gname}}, nil
}

// tableColumnFields are the GraphQL fields of a table's representable
// columns, in Stargate's column order.
type tableColumnFields struct {
	obj        graphql.Fields
	in, filter graphql.InputObjectConfigFieldMap
	order      graphql.EnumValueConfigMap
	orderNames []string
	names      []string
}

// columnFields maps each column that has output, input and filter types
// to its fields (and records it in ti); the others are left out with a
// conversion warning.
func columnFields(d *dmlSchema, types *typeCache, ti *tableInfo) tableColumnFields {
	t := ti.t
	cf := tableColumnFields{obj: graphql.Fields{}, in: graphql.InputObjectConfigFieldMap{},
		filter: graphql.InputObjectConfigFieldMap{}, order: graphql.EnumValueConfigMap{}}
	objFields, inFields, filterFields, order := cf.obj, cf.in, cf.filter, cf.order
	var orderNames, fieldNames []string
	for _, c := range stargateColumnOrder(t) {
		f := d.names.column(t.Name, c.Name)
		if f == "" {
			continue
		}
		out, err := types.output(c.Type)
		if err != nil {
			d.warnings = append(d.warnings, fmt.Sprintf(
				"Could not create output type for column %s in table %s, skipping (%v)", c.Name, t.Name, err))
			continue
		}
		in, err := types.input(c.Type)
		if err != nil {
			d.warnings = append(d.warnings, fmt.Sprintf(
				"Could not create input type for column %s in table %s, skipping (%v)", c.Name, t.Name, err))
			continue
		}
		filter, err := types.filterInput(c.Type)
		if err != nil {
			d.warnings = append(d.warnings, fmt.Sprintf(
				"Could not create filter input type for column %s in table %s, skipping (%v)", c.Name, t.Name, err))
			continue
		}
		objFields[f] = &graphql.Field{Type: out}
		inFields[f] = &graphql.InputObjectFieldConfig{Type: in}
		filterFields[f] = &graphql.InputObjectFieldConfig{Type: filter}
		order[f+"_DESC"] = &graphql.EnumValueConfig{Value: f + "_DESC"}
		order[f+"_ASC"] = &graphql.EnumValueConfig{Value: f + "_ASC"}
		orderNames = append(orderNames, f+"_ASC", f+"_DESC")
		fieldNames = append(fieldNames, f)
		ti.cols = append(ti.cols, c)
		ti.fields[f] = c
		ti.fname[c.Name] = f
	}
	cf.orderNames, cf.names = orderNames, fieldNames
	return cf
}

// tableTypes are the GraphQL types generated for one table.
type tableTypes struct {
	obj, result, mutResult *graphql.Object
	input, filter, groupBy *graphql.InputObject
	orderEnum              *graphql.Enum
	pkDesc                 string
}

func (s *Server) newTableTypes(types *typeCache, ti *tableInfo, cf tableColumnFields) (*tableTypes, error) {
	t, gname := ti.t, ti.gname
	objFields, inFields, filterFields, order := cf.obj, cf.in, cf.filter, cf.order
	orderNames, fieldNames := cf.orderNames, cf.names
	pkDesc := s.primaryKeyDescription(ti)
	objOrder, err := addAggregateFields(types, objFields, append([]string{}, fieldNames...))
	if err != nil {
		return nil, err
	}
	groupBy := groupByInput(gname, t, ti.fname)

	obj := graphql.NewObject(graphql.ObjectConfig{
		Name:        gname,
		Description: fmt.Sprintf("The type used to represent results of a query for the table '%s'.", t.Name),
		Fields:      objFields,
		FieldOrder:  objOrder,
	})
	input := graphql.NewInputObject(graphql.InputObjectConfig{
		Name:        gname + "Input",
		Description: fmt.Sprintf("The input type for the table '%s'.%s", t.Name, pkDesc),
		Fields:      inFields,
		FieldOrder:  fieldNames,
	})
	filter := graphql.NewInputObject(graphql.InputObjectConfig{
		Name:        gname + "FilterInput",
		Description: fmt.Sprintf("The input type used for filtering with non-equality operators for the table '%s'.%s", t.Name, pkDesc),
		Fields:      filterFields,
		FieldOrder:  fieldNames,
	})
	orderEnum := graphql.NewEnum(graphql.EnumConfig{
		Name:        gname + "Order",
		Description: fmt.Sprintf("The enum used to order a query result based on one or more fields for the table '%s'.", t.Name),
		Values:      order,
		ValueOrder:  orderNames,
	})
	orderEnum.ParseValue(orderNames[0]) // warm lookups (see newEnum)
	orderEnum.Serialize(orderNames[0])
	result := graphql.NewObject(graphql.ObjectConfig{
		Name:       gname + "Result",
		FieldOrder: []string{"values", "pageState"},
		Fields: graphql.Fields{
			"pageState": {Type: graphql.String},
			"values":    {Type: graphql.NewList(graphql.NewNonNull(obj))},
		},
	})
	mutResult := graphql.NewObject(graphql.ObjectConfig{
		Name:        gname + "MutationResult",
		Description: fmt.Sprintf("The type used to represent results of a mutation for the table '%s'.", t.Name),
		FieldOrder:  []string{"applied", "accepted", "value"},
		Fields: graphql.Fields{
			"applied": {Type: graphql.Boolean},
			"accepted": {
				Type:        graphql.Boolean,
				Description: "This field is relevant and fulfilled with data, only when used with the @async directive",
			},
			"value": {Type: obj},
		},
	})

	return &tableTypes{obj: obj, result: result, mutResult: mutResult, input: input, filter: filter,
		groupBy: groupBy, orderEnum: orderEnum, pkDesc: pkDesc}, nil
}

// setTableAuthorizer sets ti's permission check: the authorizer's, for
// the table as a resource, except on system tables.
func (s *Server) setTableAuthorizer(ti *tableInfo) {
	res := auth.TableResource(ti.t.Keyspace, ti.t.Name)
	ti.authorize = func(ctx context.Context, perm auth.Permission) error { return s.authorize(ctx, perm, res) }
	if s.cfg.SystemKeyspaces[ti.t.Keyspace] != nil {
		// System tables: the coordinator's check of the statement decides
		// (every role may read system_schema and system.local, as in
		// Cassandra), not a GraphQL-level SELECT grant.
		ti.authorize = func(context.Context, auth.Permission) error { return nil }
	}
}

// guarded wraps a table field's resolver in ti's permission check and
// CQL error mapping.
func guarded(ti *tableInfo, perm auth.Permission, fn graphql.FieldResolveFn) graphql.FieldResolveFn {
	return withCQLErrors(func(p graphql.ResolveParams) (any, error) {
		if err := ti.authorize(p.Context, perm); err != nil {
			return nil, err
		}
		return fn(p)
	})
}

// tableQueries are a table's query fields (the root one and the
// deprecated ...Filter).
func (s *Server) tableQueries(d *dmlSchema, ti *tableInfo, tt *tableTypes) graphql.Fields {
	t, gname, pkDesc := ti.t, ti.gname, tt.pkDesc
	result, input, filter, orderEnum, groupBy := tt.result, tt.input, tt.filter, tt.orderEnum, tt.groupBy
	q := graphql.Fields{
		gname: {
			ArgOrder:    []string{"value", "filter", "orderBy", "options", "groupBy"},
			Type:        result,
			Description: fmt.Sprintf("Query for the table '%s'.%s", t.Name, pkDesc),
			Args: graphql.FieldConfigArgument{
				"value":   {Type: input},
				"filter":  {Type: filter},
				"orderBy": {Type: graphql.NewList(orderEnum)},
				"options": {Type: s.shared.queryOptions},
				"groupBy": {Type: groupBy},
			},
			Resolve: guarded(ti, auth.Select, s.resolveQuery(d, ti)),
		},
		gname + "Filter": {
			Type:              result,
			DeprecationReason: "No longer supported. Use root type instead.",
			ArgOrder:          []string{"filter", "orderBy", "options"},
			Args: graphql.FieldConfigArgument{
				"filter":  {Type: filter},
				"orderBy": {Type: graphql.NewList(orderEnum)},
				"options": {Type: s.shared.queryOptions},
			},
			Resolve: guarded(ti, auth.Select, s.resolveQuery(d, ti)),
		},
	}
	return q
}

// tableMutations are a table's insert, update, delete and bulk insert
// fields.
func (s *Server) tableMutations(d *dmlSchema, ti *tableInfo, tt *tableTypes) graphql.Fields {
	t, gname, pkDesc := ti.t, ti.gname, tt.pkDesc
	mutResult, input, filter := tt.mutResult, tt.input, tt.filter
	m := graphql.Fields{
		"delete" + gname: {
			Type:        mutResult,
			Description: fmt.Sprintf("Delete mutation for the table '%s'.%s", t.Name, pkDesc),
			ArgOrder:    []string{"value", "ifExists", "ifCondition", "options"},
			Args: graphql.FieldConfigArgument{
				"value":       {Type: graphql.NewNonNull(input)},
				"ifExists":    {Type: graphql.Boolean},
				"ifCondition": {Type: filter},
				"options":     {Type: s.shared.mutationOptions},
			},
			Resolve: guarded(ti, auth.Modify, s.resolveMutation(d, ti, buildDelete)),
		},
		"insert" + gname: {
			Type:        mutResult,
			Description: fmt.Sprintf("Insert mutation for the table '%s'.%s", t.Name, pkDesc),
			ArgOrder:    []string{"value", "ifNotExists", "options"},
			Args: graphql.FieldConfigArgument{
				"value":       {Type: graphql.NewNonNull(input)},
				"ifNotExists": {Type: graphql.Boolean},
				"options":     {Type: s.shared.mutationOptions},
			},
			Resolve: guarded(ti, auth.Modify, s.resolveMutation(d, ti, buildInsert)),
		},
		"bulkInsert" + gname: {
			Type:        graphql.NewList(mutResult),
			Description: fmt.Sprintf("Bulk insert mutations for the table '%s'.%s", t.Name, pkDesc),
			ArgOrder:    []string{"values", "ifNotExists", "options"},
			Args: graphql.FieldConfigArgument{
				"values":      {Type: graphql.NewList(graphql.NewNonNull(input))},
				"ifNotExists": {Type: graphql.Boolean},
				"options":     {Type: s.shared.mutationOptions},
			},
			Resolve: guarded(ti, auth.Modify, s.resolveBulkInsert(d, ti)),
		},
		"update" + gname: {
			Type:        mutResult,
			Description: fmt.Sprintf("Update mutation for the table '%s'.%s", t.Name, pkDesc),
			ArgOrder:    []string{"value", "ifExists", "ifCondition", "options"},
			Args: graphql.FieldConfigArgument{
				"value":       {Type: graphql.NewNonNull(input)},
				"ifExists":    {Type: graphql.Boolean},
				"ifCondition": {Type: filter},
				"options":     {Type: s.shared.mutationOptions},
			},
			Resolve: guarded(ti, auth.Modify, s.resolveMutation(d, ti, buildUpdate)),
		},
	}
	return m
}

// orderedFields are fields with the order introspection lists them in.
type orderedFields struct {
	fields graphql.Fields
	order  []string
}

// primaryKeyDescription tells which fields make the primary key, as
// Stargate's descriptions do.
func (s *Server) primaryKeyDescription(ti *tableInfo) string {
	var keys []string
	for _, c := range append(append([]*schema.Column{}, ti.t.PartitionKey...), ti.t.Clustering...) {
		keys = append(keys, "'"+ti.fname[c.Name]+"'")
	}
	var sb strings.Builder
	sb.WriteString("\nNote that ")
	for i, k := range keys {
		switch {
		case i == 0:
		case i == len(keys)-1:
			sb.WriteString(" and ")
		default:
			sb.WriteString(", ")
		}
		sb.WriteString(k)
	}
	if len(keys) > 1 {
		sb.WriteString(" are the fields that correspond to the table primary key.")
	} else {
		sb.WriteString(" is the field that corresponds to the table primary key.")
	}
	return sb.String()
}
