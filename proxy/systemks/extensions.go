package systemks

import (
	"context"
	"errors"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// UPDATE system_schema.tables SET extensions = ? WHERE keyspace_name = ?
// AND table_name = ? (and the same on system_schema.views, view_name):
// how drivers' tests and some tools attach table extensions. Cassandra
// 5.0 accepts the write (a raw row change: no schema event, the table
// itself unchanged). dohyo keeps the map with the table in the catalog of
// the keyspace's backend, or, for a keyspace relayed to Cassandra, lets
// Cassandra write it (dohyo's system_schema shows Cassandra's rows). Every
// other change to the system keyspaces is refused.

// extUpdate is a parsed extensions update: the target's terms.
type extUpdate struct {
	view                 bool
	value, keyspace, obj cql.Term
}

// mapBlob is the extensions column's type.
var mapBlob = cql.FrozenOf(cql.MapOf(cql.Scalar(cql.KindText), cql.Scalar(cql.KindBlob)))

// extensionsUpdate recognises an extensions update; ok is false for any
// other statement.
func extensionsUpdate(st cql.Statement, sessionKS string) (extUpdate, bool) {
	u, isUpdate := st.(*cql.Update)
	if !isUpdate || keyspaceOf(u.Keyspace, sessionKS) != "system_schema" || len(u.Set) != 1 || len(u.Where) != 2 ||
		u.IfExists || len(u.If) > 0 || u.Using.TTL != nil || u.Using.Timestamp != nil {
		return extUpdate{}, false
	}
	e := extUpdate{view: u.Table == "views"}
	objCol := "table_name"
	switch u.Table {
	case "tables":
	case "views":
		objCol = "view_name"
	default:
		return extUpdate{}, false
	}
	if a := u.Set[0]; a.Column != "extensions" || a.Op != cql.AssignSet {
		return extUpdate{}, false
	}
	e.value = u.Set[0].Value
	for _, r := range u.Where {
		if len(r.Columns) != 1 || r.Op != cql.OpEq || r.Token || r.Key != nil {
			return extUpdate{}, false
		}
		switch r.Columns[0] {
		case "keyspace_name":
			e.keyspace = r.Value
		case objCol:
			e.obj = r.Value
		}
	}
	return e, e.keyspace != nil && e.obj != nil
}

// bindSpecs are the update's bind variables, in marker order, as
// Cassandra names them (the columns).
func (e extUpdate) bindSpecs(markers int) ([]bindings.ColumnSpec, []uint16) {
	specs := make([]bindings.ColumnSpec, markers)
	var pk []uint16
	objCol := "table_name"
	if e.view {
		objCol = "view_name"
	}
	table := "tables"
	if e.view {
		table = "views"
	}
	for _, c := range []struct {
		term cql.Term
		name string
		t    *cql.Type
	}{{e.value, "extensions", mapBlob}, {e.keyspace, "keyspace_name", cql.Scalar(cql.KindText)}, {e.obj, objCol, cql.Scalar(cql.KindText)}} {
		if m, ok := c.term.(*cql.BindMarker); ok && m.Index < markers {
			specs[m.Index] = bindings.ColumnSpec{Keyspace: "system_schema", Table: table, Name: c.name, Type: c.t}
			if c.name == "keyspace_name" {
				pk = append(pk, uint16(m.Index))
			}
		}
	}
	return specs, pk
}

// executeExtensions runs an extensions update.
func (v *Backend) executeExtensions(ctx context.Context, e extUpdate, req *bindings.Request) (*bindings.Result, error) {
	vals, err := v.bindValues(req)
	if err != nil {
		return nil, err
	}
	r := boundResolver(vals)
	text := func(t cql.Term, recv string) (string, error) {
		b, err := encodeValue(cql.Scalar(cql.KindText), t, recv, r)
		if err != nil {
			return "", err
		}
		if b == nil {
			return "", bindings.Errorf(bindings.CodeInvalid, "Invalid null value in condition for column %s", recv)
		}
		return string(b), nil
	}
	ks, err := text(e.keyspace, "keyspace_name")
	if err != nil {
		return nil, err
	}
	objCol := "table_name"
	if e.view {
		objCol = "view_name"
	}
	name, err := text(e.obj, objCol)
	if err != nil {
		return nil, err
	}
	raw, err := encodeValue(mapBlob, e.value, "extensions", r)
	if err != nil {
		return nil, err
	}
	ext, err := decodeExtensions(raw)
	if err != nil {
		return nil, err
	}
	c := v.cfg.Coordinator
	rt := c.Route(ks)
	backendName, backend := rt.Name, rt.Backend
	if backend == nil || isSystemKeyspace(ks) {
		return nil, notModifiable("system_schema")
	}
	if _, relayed := v.cfg.SchemaSources[backendName]; relayed {
		// Cassandra keeps its own system_schema: it writes the row.
		if _, err := backend.Execute(ctx, req); err != nil {
			return nil, err
		}
		// Cassandra's schema version does not change with the row: drop
		// the rows cached for this catalog version.
		v.mu.Lock()
		clear(v.cache)
		v.mu.Unlock()
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	st := &cql.SetExtensions{Keyspace: ks, Name: name, View: e.view, Extensions: ext}
	if _, err := backend.Execute(ctx, &bindings.Request{Keyspace: ks, Parsed: &cql.Parsed{Stmt: st},
		Consistency: req.Consistency}); err != nil {
		return nil, err
	}
	// Cassandra's raw write pushes no schema event; neither does dohyo.
	return &bindings.Result{Kind: bindings.ResultVoid}, nil
}

// bindValues orders a request's bound values by marker (named values by
// the markers' names).
func (v *Backend) bindValues(req *bindings.Request) ([]bindings.Value, error) {
	if req.Names == nil {
		return req.Values, nil
	}
	return nil, bindings.Errorf(bindings.CodeInvalid, "named values are not supported on system_schema updates by dohyo")
}

func decodeExtensions(b []byte) (map[string][]byte, error) {
	if b == nil {
		return nil, nil
	}
	v, err := cql.DecodeGo(mapBlob, b)
	if err != nil {
		return nil, bindings.Errorf(bindings.CodeInvalid, "Invalid extensions map: %v", err)
	}
	entries, ok := v.([]cql.MapEntry)
	if !ok {
		return nil, errors.New("systemks: extensions decoded as an unexpected type")
	}
	out := make(map[string][]byte, len(entries))
	for _, en := range entries {
		k, _ := en.Key.(string)
		x, _ := en.Value.([]byte)
		out[k] = x
	}
	return out, nil
}

func isSystemKeyspace(ks string) bool {
	for _, s := range virtualKeyspaces {
		if strings.EqualFold(ks, s) {
			return true
		}
	}
	return false
}
