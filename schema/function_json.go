package schema

import (
	"fmt"

	"github.com/dohyo/dohyo/cql"
)

type (
	jsonFunction struct {
		Name         string      `json:"name"`
		ArgNames     []string    `json:"arg_names"`
		ArgTypes     []*jsonType `json:"arg_types"`
		ReturnType   *jsonType   `json:"return_type"`
		CalledOnNull bool        `json:"called_on_null_input"`
		Language     string      `json:"language"`
		Body         string      `json:"body"`
	}
	jsonAggregate struct {
		Name       string      `json:"name"`
		ArgTypes   []*jsonType `json:"arg_types"`
		StateFunc  string      `json:"state_func"`
		StateType  *jsonType   `json:"state_type"`
		FinalFunc  string      `json:"final_func,omitempty"`
		InitCond   string      `json:"initcond,omitempty"`
		ReturnType *jsonType   `json:"return_type"`
	}
)

func encodeTypes(ts []*cql.Type) []*jsonType {
	out := make([]*jsonType, len(ts))
	for i, t := range ts {
		out[i] = encodeType(t)
	}
	return out
}

func decodeTypes(js []*jsonType) ([]*cql.Type, error) {
	out := make([]*cql.Type, len(js))
	for i, j := range js {
		t, err := decodeType(j)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

func encodeFunctions(ks *Keyspace, jk *jsonKeyspace) {
	for _, f := range ks.Functions {
		jk.Functions = append(jk.Functions, jsonFunction{Name: f.Name, ArgNames: f.ArgNames, ArgTypes: encodeTypes(f.ArgTypes),
			ReturnType: encodeType(f.ReturnType), CalledOnNull: f.CalledOnNull, Language: f.Language, Body: f.Body})
	}
	for _, a := range ks.Aggregates {
		jk.Aggregates = append(jk.Aggregates, jsonAggregate{Name: a.Name, ArgTypes: encodeTypes(a.ArgTypes), StateFunc: a.StateFunc,
			StateType: encodeType(a.StateType), FinalFunc: a.FinalFunc, InitCond: a.InitCond, ReturnType: encodeType(a.ReturnType)})
	}
}

func decodeFunctions(ks *Keyspace, jk jsonKeyspace) error {
	for _, jf := range jk.Functions {
		f := &Function{Keyspace: ks.Name, Name: jf.Name, ArgNames: jf.ArgNames, CalledOnNull: jf.CalledOnNull, Language: jf.Language, Body: jf.Body}
		var err error
		if f.ArgTypes, err = decodeTypes(jf.ArgTypes); err != nil {
			return fmt.Errorf("function %s: %w", jf.Name, err)
		}
		if f.ReturnType, err = decodeType(jf.ReturnType); err != nil {
			return fmt.Errorf("function %s: %w", jf.Name, err)
		}
		if len(f.ArgNames) != len(f.ArgTypes) {
			return fmt.Errorf("function %s: %d argument names for %d types", jf.Name, len(f.ArgNames), len(f.ArgTypes))
		}
		ks.Functions = append(ks.Functions, f)
	}
	for _, ja := range jk.Aggregates {
		a := &Aggregate{Keyspace: ks.Name, Name: ja.Name, StateFunc: ja.StateFunc, FinalFunc: ja.FinalFunc, InitCond: ja.InitCond}
		var err error
		if a.ArgTypes, err = decodeTypes(ja.ArgTypes); err != nil {
			return fmt.Errorf("aggregate %s: %w", ja.Name, err)
		}
		if a.StateType, err = decodeType(ja.StateType); err != nil {
			return fmt.Errorf("aggregate %s: %w", ja.Name, err)
		}
		if a.ReturnType, err = decodeType(ja.ReturnType); err != nil {
			return fmt.Errorf("aggregate %s: %w", ja.Name, err)
		}
		ks.Aggregates = append(ks.Aggregates, a)
	}
	return nil
}
