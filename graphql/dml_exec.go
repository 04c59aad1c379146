package graphql

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/language/ast"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// statement is one CQL statement built from GraphQL arguments: text with
// bind markers and the already serialized values, in marker order.
type statement struct {
	query  string
	values [][]byte
}

// builder accumulates a statement.
type builder struct {
	sb     strings.Builder
	values [][]byte
}

func (b *builder) add(v []byte) { b.values = append(b.values, v) }

func (b *builder) statement() *statement {
	return &statement{query: b.sb.String(), values: b.values}
}

// filterOps are the filter operators in the order conditions are emitted.
var filterOps = []struct {
	field, op string
}{
	{"eq", "="}, {"notEq", "!="}, {"gt", ">"}, {"gte", ">="}, {"lt", "<"}, {"lte", "<="},
	{"in", "IN"}, {"contains", "CONTAINS"}, {"containsKey", "CONTAINS KEY"}, {"containsEntry", ""},
}

// conditions renders a filter (query WHERE) or an ifCondition (IF) as
// relations joined with AND, appending their values to b.
func conditions(ti *tableInfo, filter map[string]any, b *builder) ([]string, error) {
	var rels []string
	for _, c := range ti.cols {
		f := ti.fname[c.Name]
		raw, ok := filter[f]
		if !ok {
			continue
		}
		ops, _ := raw.(map[string]any)
		col := cql.QuoteIdent(c.Name)
		for _, op := range filterOps {
			v, ok := ops[op.field]
			if !ok {
				continue
			}
			var vt *cql.Type
			switch op.field {
			case "in":
				vt = cql.ListOf(c.Type)
			case "contains":
				switch c.Type.Kind {
				case cql.KindList, cql.KindSet:
					vt = c.Type.Elems[0]
				case cql.KindMap:
					vt = c.Type.Elems[1]
				}
			case "containsKey":
				if c.Type.Kind == cql.KindMap {
					vt = c.Type.Elems[0]
				}
			case "containsEntry":
				if c.Type.Kind != cql.KindMap {
					return nil, fmt.Errorf("containsEntry is only valid for map fields ('%s')", f)
				}
				entry, _ := v.(map[string]any)
				kb, err := encodeInput(c.Type.Elems[0], f, entry["key"])
				if err != nil {
					return nil, err
				}
				vb, err := encodeInput(c.Type.Elems[1], f, entry["value"])
				if err != nil {
					return nil, err
				}
				b.add(kb)
				b.add(vb)
				rels = append(rels, col+"[?] = ?")
				continue
			default:
				vt = c.Type
			}
			if vt == nil {
				return nil, fmt.Errorf("%s is only valid for collection fields ('%s')", op.field, f)
			}
			vb, err := encodeInput(vt, f, v)
			if err != nil {
				return nil, err
			}
			b.add(vb)
			rels = append(rels, col+" "+op.op+" ?")
		}
	}
	return rels, nil
}

// eachInput encodes, in column order, the columns of ti that the table
// input value sets and keep accepts (nil: all), and calls fn with each
// column and its encoded value.
func eachInput(ti *tableInfo, value map[string]any, keep func(*schema.Column) bool, fn func(c *schema.Column, vb []byte)) error {
	for _, c := range ti.cols {
		f := ti.fname[c.Name]
		v, ok := value[f]
		if !ok || (keep != nil && !keep(c)) {
			continue
		}
		vb, err := encodeInput(c.Type, f, v)
		if err != nil {
			return err
		}
		fn(c, vb)
	}
	return nil
}

// equalities renders the fields of a table input value as "col = ?"
// relations (the value argument of queries and deletes), keeping only
// the columns keep accepts.
func equalities(ti *tableInfo, value map[string]any, keep func(*schema.Column) bool, b *builder) ([]string, error) {
	var rels []string
	err := eachInput(ti, value, keep, func(c *schema.Column, vb []byte) {
		b.add(vb)
		rels = append(rels, cql.QuoteIdent(c.Name)+" = ?")
	})
	return rels, err
}

func argMap(args map[string]any, name string) (map[string]any, bool) {
	m, ok := args[name].(map[string]any)
	return m, ok
}

func argBool(args map[string]any, name string) bool {
	v, _ := args[name].(bool)
	return v
}

// queryOptions are the parsed QueryOptions.
type queryOptions struct {
	consistency bindings.Consistency
	limit       int
	pageSize    int
	pageState   []byte
}

func (s *Server) parseQueryOptions(args map[string]any) (queryOptions, error) {
	o := queryOptions{consistency: bindings.LocalQuorum, pageSize: s.cfg.DefaultPageSize}
	m, _ := argMap(args, "options")
	if c, ok := m["consistency"].(string); ok {
		cl, ok := bindings.ParseConsistency(c)
		if !ok {
			return o, fmt.Errorf("unknown consistency %s", c)
		}
		o.consistency = cl
	}
	if v, ok := m["limit"].(int); ok {
		if v <= 0 {
			return o, fmt.Errorf("LIMIT must be strictly positive")
		}
		o.limit = v
	}
	if v, ok := m["pageSize"].(int); ok {
		o.pageSize = v
	}
	if o.pageSize < 1 || o.pageSize > s.cfg.MaxPageSize {
		return o, fmt.Errorf("pageSize must be between 1 and %d (got %d)", s.cfg.MaxPageSize, o.pageSize)
	}
	if ps, ok := m["pageState"].(string); ok && ps != "" {
		b, err := base64.StdEncoding.DecodeString(ps)
		if err != nil {
			return o, fmt.Errorf("Invalid pageState: %v", err)
		}
		o.pageState = b
	}
	return o, nil
}

// mutationOptions are the parsed MutationOptions.
type mutationOptions struct {
	consistency, serial bindings.Consistency
	ttl                 int
	hasTTL              bool
}

func parseMutationOptions(args map[string]any) (*mutationOptions, error) {
	o := &mutationOptions{consistency: bindings.LocalQuorum, serial: bindings.Serial}
	m, _ := argMap(args, "options")
	if c, ok := m["consistency"].(string); ok {
		if o.consistency, ok = bindings.ParseConsistency(c); !ok {
			return nil, fmt.Errorf("unknown consistency %s", c)
		}
	}
	if c, ok := m["serialConsistency"].(string); ok {
		if o.serial, ok = bindings.ParseConsistency(c); !ok {
			return nil, fmt.Errorf("unknown serial consistency %s", c)
		}
	}
	if v, ok := m["ttl"].(int); ok {
		if v < 0 {
			return nil, fmt.Errorf("A TTL must be greater or equal to 0, but was %d", v)
		}
		o.ttl, o.hasTTL = v, true
	}
	return o, nil
}

// selectedColumns lists the CQL columns requested under "values" (all
// occurrences, aliases and fragments included), in table order.
// Aggregation fields follow, as `f(cols) AS "$key"`.
func selectedColumns(info graphql.ResolveInfo, ti *tableInfo) ([]string, error) {
	want := map[string]bool{}
	var aggs []string
	var err error
	for _, fa := range info.FieldASTs {
		visitFields(fa.SelectionSet, info.Fragments, func(f *ast.Field) {
			if fieldName(f) != "values" {
				return
			}
			visitFields(f.SelectionSet, info.Fragments, func(sub *ast.Field) {
				if c := ti.fields[fieldName(sub)]; c != nil {
					want[c.Name] = true
				} else if isAggregateField(fieldName(sub)) && err == nil {
					var sel string
					if sel, err = aggregateSelector(ti, sub, info.VariableValues); err == nil && !slices.Contains(aggs, sel) {
						aggs = append(aggs, sel)
					}
				}
			})
		})
	}
	var cols []string
	for _, c := range ti.cols {
		if want[c.Name] {
			cols = append(cols, cql.QuoteIdent(c.Name))
		}
	}
	return append(cols, aggs...), err
}

// appendSelect appends the SELECT of a table query to text and its
// values, in marker order, to values. The text goes into a buffer the
// request reuses: selectRows turns it into a string only when the
// keyspace's statement cache does not hold it yet.
func appendSelect(text []byte, values [][]byte, ti *tableInfo, args map[string]any, cols []string, limit int) ([]byte, [][]byte, error) {
	text = append(text, "SELECT "...)
	if len(cols) == 0 {
		text = append(text, '*')
	}
	for i, c := range cols {
		if i > 0 {
			text = append(text, ", "...)
		}
		text = append(text, c...)
	}
	text = append(text, " FROM "...)
	text = append(text, ti.ref...)
	if filter, ok := argMap(args, "filter"); ok {
		var b builder
		rels, err := conditions(ti, filter, &b)
		if err != nil {
			return text, values, err
		}
		for i, r := range rels {
			text = appendRelation(text, i, r)
		}
		values = append(values, b.values...)
	} else if value, ok := argMap(args, "value"); ok {
		n := 0
		err := eachInput(ti, value, nil, func(c *schema.Column, vb []byte) { // equalities, without a string per relation
			values = append(values, vb)
			text = append(appendRelation(text, n, cql.QuoteIdent(c.Name)), " = ?"...)
			n++
		})
		if err != nil {
			return text, values, err
		}
	}
	text = append(text, groupByClause(ti, args)...)
	if order, ok := args["orderBy"].([]any); ok && len(order) > 0 {
		text = append(text, " ORDER BY "...)
		for j, o := range order {
			name, _ := o.(string)
			i := strings.LastIndexByte(name, '_')
			if i < 0 {
				return text, values, fmt.Errorf("invalid orderBy value %q", name)
			}
			c := ti.fields[name[:i]]
			if c == nil {
				return text, values, fmt.Errorf("invalid orderBy value %q", name)
			}
			if j > 0 {
				text = append(text, ", "...)
			}
			text = append(append(append(text, cql.QuoteIdent(c.Name)...), ' '), name[i+1:]...)
		}
	}
	if limit > 0 {
		text = strconv.AppendInt(append(text, " LIMIT "...), int64(limit), 10)
	}
	return text, values, nil
}

// appendRelation appends the i-th relation of a WHERE clause.
func appendRelation(text []byte, i int, rel string) []byte {
	if i == 0 {
		return append(append(text, " WHERE "...), rel...)
	}
	return append(append(text, " AND "...), rel...)
}

// resolveQuery answers t(value, filter, orderBy, options).
func (s *Server) resolveQuery(d *dmlSchema, ti *tableInfo) graphql.FieldResolveFn {
	return func(p graphql.ResolveParams) (any, error) {
		res, err := s.selectRows(p.Context, d, ti, p.Args, func() ([]string, error) { return selectedColumns(p.Info, ti) })
		if err != nil {
			return nil, err
		}
		values := make([]any, 0, len(res.Rows))
		for _, row := range res.Rows {
			v, err := rowToGraphQL(ti, res.Columns, row)
			if err != nil {
				return nil, err
			}
			values = append(values, v)
		}
		out := map[string]any{"values": values}
		if res.PagingState != nil {
			out["pageState"] = base64.StdEncoding.EncodeToString(res.PagingState)
		}
		return out, nil
	}
}

// selectRows runs a table query with its coerced arguments: options, the
// columns (cols, asked after the options are checked), the statement and
// its execution in the request's session. Both graphql-go's resolver and
// compiled plans (plan.go) query through it.
func (s *Server) selectRows(ctx context.Context, d *dmlSchema, ti *tableInfo, args map[string]any,
	cols func() ([]string, error)) (*bindings.Result, error) {
	rs, err := stateFrom(ctx)
	if err != nil {
		return nil, err
	}
	opts, err := s.parseQueryOptions(args)
	if err != nil {
		return nil, err
	}
	sel, err := cols()
	if err != nil {
		return nil, err
	}
	var textBuf [256]byte
	text, values, err := appendSelect(textBuf[:0], nil, ti, args, sel, opts.limit)
	if err != nil {
		return nil, err
	}
	query := d.prep.text(text)
	if query == "" {
		query = string(text)
	}
	return s.execute(ctx, d, rs, &statement{query: query, values: values}, &bindings.Request{
		Consistency: opts.consistency, PageSize: int32(opts.pageSize), PagingState: opts.pageState,
	})
}

// mutationBuild builds the statement of one mutation.
type mutationBuild func(ti *tableInfo, args map[string]any, value map[string]any, o *mutationOptions) (*statement, error)

func usingTTL(o *mutationOptions) string {
	if o.hasTTL {
		return " USING TTL " + strconv.Itoa(o.ttl)
	}
	return ""
}

func buildInsert(ti *tableInfo, args, value map[string]any, o *mutationOptions) (*statement, error) {
	var b builder
	var cols, marks []string
	err := eachInput(ti, value, nil, func(c *schema.Column, vb []byte) {
		b.add(vb)
		cols = append(cols, cql.QuoteIdent(c.Name))
		marks = append(marks, "?")
	})
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, errors.New("Insert statement must contain at least one field")
	}
	fmt.Fprintf(&b.sb, "INSERT INTO %s (%s) VALUES (%s)", ti.ref, strings.Join(cols, ", "), strings.Join(marks, ", "))
	if argBool(args, "ifNotExists") {
		b.sb.WriteString(" IF NOT EXISTS")
	}
	b.sb.WriteString(usingTTL(o))
	return b.statement(), nil
}

func buildUpdate(ti *tableInfo, args, value map[string]any, o *mutationOptions) (*statement, error) {
	var b builder
	var sets []string
	notKey := func(c *schema.Column) bool { return !ti.isPrimaryKey(c) }
	err := eachInput(ti, value, notKey, func(c *schema.Column, vb []byte) {
		b.add(vb)
		col := cql.QuoteIdent(c.Name)
		if c.Type.Kind == cql.KindCounter {
			sets = append(sets, col+" = "+col+" + ?")
		} else {
			sets = append(sets, col+" = ?")
		}
	})
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return nil, errors.New("Update mutation must contain at least one field that is not part of the primary key")
	}
	where, err := equalities(ti, value, ti.isPrimaryKey, &b)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b.sb, "UPDATE %s%s SET %s", ti.ref, usingTTL(o), strings.Join(sets, ", "))
	if len(where) > 0 {
		b.sb.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if err := writeIfs(ti, args, &b); err != nil {
		return nil, err
	}
	return b.statement(), nil
}

func buildDelete(ti *tableInfo, args, value map[string]any, _ *mutationOptions) (*statement, error) {
	var b builder
	where, err := equalities(ti, value, nil, &b)
	if err != nil {
		return nil, err
	}
	b.sb.WriteString("DELETE FROM " + ti.ref)
	if len(where) > 0 {
		b.sb.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if err := writeIfs(ti, args, &b); err != nil {
		return nil, err
	}
	return b.statement(), nil
}

// writeIfs appends IF EXISTS or the ifCondition conditions.
func writeIfs(ti *tableInfo, args map[string]any, b *builder) error {
	cond, hasCond := argMap(args, "ifCondition")
	if argBool(args, "ifExists") {
		if hasCond && len(cond) > 0 {
			return errors.New("ifExists and ifCondition cannot be used together")
		}
		b.sb.WriteString(" IF EXISTS")
		return nil
	}
	if !hasCond {
		return nil
	}
	ifs, err := conditions(ti, cond, b)
	if err != nil {
		return err
	}
	if len(ifs) > 0 {
		b.sb.WriteString(" IF " + strings.Join(ifs, " AND "))
	}
	return nil
}

// mutationResult builds a MutationResult from a statement's result: an
// unconditional write reflects the input back; a conditional one reports
// [applied] and, when not applied, the current row.
func mutationResult(ti *tableInfo, res *bindings.Result, value map[string]any) (map[string]any, error) {
	if res == nil || len(res.Rows) == 0 {
		return map[string]any{"applied": true, "value": echoValue(ti, value)}, nil
	}
	applied := isApplied(res.Columns, res.Rows[0])
	if applied {
		return map[string]any{"applied": true, "value": echoValue(ti, value)}, nil
	}
	row, err := rowToGraphQL(ti, res.Columns, res.Rows[0])
	if err != nil {
		return nil, err
	}
	return map[string]any{"applied": false, "value": row}, nil
}

func isApplied(cols []bindings.ColumnSpec, row [][]byte) bool {
	for i, c := range cols {
		if c.Name == "[applied]" {
			return i < len(row) && len(row[i]) == 1 && row[i][0] != 0
		}
	}
	return false
}

// resolveMutation answers insert/update/delete of one row.
func (s *Server) resolveMutation(d *dmlSchema, ti *tableInfo, build mutationBuild) graphql.FieldResolveFn {
	return func(p graphql.ResolveParams) (any, error) {
		rs, err := stateFrom(p.Context)
		if err != nil {
			return nil, err
		}
		value, _ := argMap(p.Args, "value")
		opts, err := parseMutationOptions(p.Args)
		var st *statement
		if err == nil {
			st, err = build(ti, p.Args, value, opts)
		}
		op := operationOf(p.Info)
		if hasDirective(op, "atomic") && selectionCount(op) > 1 {
			return s.addToBatch(p, d, ti, rs, []*statement{st}, []map[string]any{value}, opts, err, false)
		}
		if err != nil {
			return nil, err
		}
		req := &bindings.Request{Consistency: opts.consistency, SerialConsistency: opts.serial}
		if hasDirective(op, "async") {
			s.executeAsync(p.Context, d, rs, st, req)
			return acceptedResult(ti, value), nil
		}
		res, err := s.execute(p.Context, d, rs, st, req)
		if err != nil {
			return nil, err
		}
		return mutationResult(ti, res, value)
	}
}

// resolveBulkInsert answers bulkInsert(values, ifNotExists, options): one
// INSERT per value, executed in order (or as one batch with @atomic).
func (s *Server) resolveBulkInsert(d *dmlSchema, ti *tableInfo) graphql.FieldResolveFn {
	return func(p graphql.ResolveParams) (any, error) {
		rs, err := stateFrom(p.Context)
		if err != nil {
			return nil, err
		}
		raw, _ := p.Args["values"].([]any)
		values := make([]map[string]any, len(raw))
		for i, r := range raw {
			values[i], _ = r.(map[string]any)
		}
		opts, err := parseMutationOptions(p.Args)
		var sts []*statement
		for _, v := range values {
			if err != nil {
				break
			}
			var st *statement
			st, err = buildInsert(ti, p.Args, v, opts)
			sts = append(sts, st)
		}
		op := operationOf(p.Info)
		if hasDirective(op, "atomic") && (selectionCount(op) > 1 || len(values) > 1) {
			return s.addToBatch(p, d, ti, rs, sts, values, opts, err, true)
		}
		if err != nil {
			return nil, err
		}
		req := &bindings.Request{Consistency: opts.consistency, SerialConsistency: opts.serial}
		out := make([]any, 0, len(sts))
		for i, st := range sts {
			if hasDirective(op, "async") {
				s.executeAsync(p.Context, d, rs, st, req)
				out = append(out, acceptedResult(ti, values[i]))
				continue
			}
			res, err := s.execute(p.Context, d, rs, st, req)
			if err != nil {
				return nil, err
			}
			r, err := mutationResult(ti, res, values[i])
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
}

func acceptedResult(ti *tableInfo, value map[string]any) map[string]any {
	return map[string]any{"accepted": true, "value": echoValue(ti, value)}
}

func operationOf(info graphql.ResolveInfo) *ast.OperationDefinition {
	op, _ := info.Operation.(*ast.OperationDefinition)
	return op
}

func hasDirective(op *ast.OperationDefinition, name string) bool {
	if op == nil {
		return false
	}
	for _, d := range op.Directives {
		if d.Name != nil && d.Name.Value == name {
			return true
		}
	}
	return false
}

func selectionCount(op *ast.OperationDefinition) int {
	if op == nil || op.SelectionSet == nil {
		return 0
	}
	return len(op.SelectionSet.Selections)
}

// execute prepares st (through the keyspace's statement cache) and runs
// it with the session, re-preparing once if the coordinator forgot it.
func (s *Server) execute(ctx context.Context, d *dmlSchema, rs *requestState, st *statement, req *bindings.Request) (*bindings.Result, error) {
	for attempt := 0; ; attempt++ {
		ps, err := d.prep.get(ctx, rs.session, st.query)
		if err != nil {
			return nil, err
		}
		if len(ps.Meta.Bind) != len(st.values) {
			return nil, fmt.Errorf("internal error: statement has %d bind markers but %d values", len(ps.Meta.Bind), len(st.values))
		}
		r := *req
		r.Values = make([]bindings.Value, len(st.values))
		for i, v := range st.values {
			// Values were serialized for the column types the statement
			// names; the backend's bind types must agree.
			if v != nil {
				if err := cql.Validate(ps.Meta.Bind[i].Type, v); err != nil {
					return nil, fmt.Errorf("value %d of %s: %w", i+1, st.query, err)
				}
			}
			r.Values[i] = bindings.Value{Bytes: v}
		}
		res, err := rs.session.Execute(ctx, ps.ID, &r)
		if err != nil && attempt == 0 && isUnprepared(err) {
			d.prep.forget(st.query)
			continue
		}
		return res, err
	}
}

// isUnprepared tells whether err is the coordinator's Unprepared error (its
// own function: the target errors.As needs costs an allocation, which the
// request path without errors should not pay).
func isUnprepared(err error) bool {
	var be *bindings.Error
	return errors.As(err, &be) && be.Code == bindings.CodeUnprepared
}
