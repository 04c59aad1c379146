package graphql

import (
	"context"
	"encoding/base64"

	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/gqlerrors"
	"github.com/graphql-go/graphql/language/ast"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
)

// planFor returns the compiled plan of a request's operation, compiling it
// on first use; nil when graphql-go must answer (not a DML schema, plans
// disabled, or a document no plan covers).
func (s *Server) planFor(d *dmlSchema, cd *cachedDoc, operation string) *queryPlan {
	if d == nil || s.cfg.NoCompiledPlans {
		return nil
	}
	if p, ok := cd.plans.Load(operation); ok {
		return p.(*queryPlan)
	}
	p := compilePlan(d, cd.doc, operation)
	cd.plans.Store(operation, p) // a nil plan remembers "graphql-go"
	return p
}

// runPlan answers a request with plan p, appending the response to b. ok
// is false when graphql-go must answer instead: the variables do not
// coerce (graphql-go reports why; nothing ran), or a value could not be
// completed (a panic, as graphql-go would report it per field; the
// statement ran, but a query has no effect to repeat).
func (s *Server) runPlan(ctx context.Context, d *dmlSchema, p *queryPlan, shape *responseShape, vars map[string]any,
	b []byte) (_ []byte, _ []gqlerrors.FormattedError, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	vals, err := graphql.VariableValues(d.schema, p.op.VariableDefinitions, vars)
	if err != nil {
		return b, nil, false
	}
	var errs []gqlerrors.FormattedError
	b = append(b, `{"data":{`...)
	for i := range p.fields {
		rp := &p.fields[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, rp.key)
		b = append(b, ':')
		if rp.ti == nil {
			b = appendJSONString(b, rp.typename)
			continue
		}
		start := len(b)
		var ferr error
		if b, ferr = s.appendTableQuery(ctx, d, rp, shape, vals, b); ferr != nil {
			b = append(b[:start], "null"...)
			errs = append(errs, fieldError(ferr, rp))
		}
	}
	b = append(b, '}')
	if len(errs) > 0 {
		b = append(b, ',')
		b = appendErrors(b, errs)
	}
	return append(b, '}'), errs, true
}

// fieldError is a root field's error as graphql-go reports it: located
// at the field, with its path, CQL errors carrying their code.
func fieldError(err error, rp *rootPlan) gqlerrors.FormattedError {
	return gqlerrors.FormatError(graphql.NewLocatedErrorWithPath(wrapCQLError(err),
		graphql.FieldASTsToNodeASTs([]*ast.Field{rp.field}), []any{rp.key}))
}

// appendTableQuery runs one table query field and appends its result
// object; on an error the caller replaces what was appended with null.
func (s *Server) appendTableQuery(ctx context.Context, d *dmlSchema, rp *rootPlan, shape *responseShape,
	vars map[string]any, b []byte) ([]byte, error) {
	args := graphql.ArgumentValues(rp.def.Args, rp.field.Arguments, vars)
	if err := rp.ti.authorize(ctx, auth.Select); err != nil {
		return b, err
	}
	res, err := s.selectRows(ctx, d, rp.ti, args, func() ([]string, error) { return rp.cols, nil })
	if err != nil {
		return b, err
	}
	hasValues := false
	b = append(b, '{')
	for i, r := range rp.result {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, r.key)
		b = append(b, ':')
		switch r.kind {
		case resultTypename:
			b = appendJSONString(b, r.typename)
		case resultPageState:
			if res.PagingState == nil {
				b = append(b, "null"...)
			} else {
				b = appendJSONString(b, base64.StdEncoding.EncodeToString(res.PagingState))
			}
		case resultValues:
			hasValues = true
			if b, err = appendRows(b, rp.ti, r.values, shape, res); err != nil {
				return b, err
			}
		}
	}
	if !hasValues { // the resolver decodes every row all the same
		for _, row := range res.Rows {
			if err := decodeRow(rp.ti, res.Columns, row, func(int, string, any) {}); err != nil {
				return b, err
			}
		}
	}
	return append(b, '}'), nil
}

// appendRows appends the rows of res as the list of row objects vals
// selects, each value decoded by decodeRow and completed by graphql-go's
// leaf completion, as the resolver and the executor do.
func appendRows(b []byte, ti *tableInfo, vals []valuePlan, shape *responseShape, res *bindings.Result) ([]byte, error) {
	var idxBuf [16]int
	idx := idxBuf[:0]
	for _, v := range vals {
		at := -1
		for i, c := range res.Columns {
			if v.leaf != nil && ti.fname[c.Name] == v.field {
				at = i
				break
			}
		}
		idx = append(idx, at)
	}
	var slotBuf [16]any
	slots := slotBuf[:0]
	if n := len(res.Columns); n <= len(slotBuf) {
		slots = slotBuf[:n]
	} else {
		slots = make([]any, n)
	}
	keep := func(i int, _ string, v any) { slots[i] = v }
	b = append(b, '[')
	for r, row := range res.Rows {
		clear(slots)
		if err := decodeRow(ti, res.Columns, row, keep); err != nil {
			return b, err
		}
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for j, v := range vals {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, v.key)
			b = append(b, ':')
			switch {
			case v.leaf == nil:
				b = appendJSONString(b, v.typename)
			case idx[j] < 0:
				b = append(b, "null"...)
			default:
				b = shape.appendValue(b, graphql.CompleteLeafValue(v.leaf, slots[idx[j]]), nil)
			}
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}
