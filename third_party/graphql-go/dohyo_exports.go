package graphql

import "github.com/graphql-go/graphql/language/ast"

// dohyo patch: the pieces of execution dohyo's compiled query plans reuse,
// so a plan coerces variables and arguments and completes leaf values
// exactly as Execute does (no copy of the rules in dohyo).

// VariableValues coerces a request's variables for an operation's
// variable definitions, as Execute does before running it.
func VariableValues(schema Schema, defs []*ast.VariableDefinition, inputs map[string]interface{}) (map[string]interface{}, error) {
	return getVariableValues(schema, defs, inputs)
}

// ArgumentValues builds a field's argument map from its argument ASTs and
// coerced variables, as Execute passes it to a resolver.
func ArgumentValues(defs []*Argument, args []*ast.Argument, variables map[string]interface{}) map[string]interface{} {
	return getArgumentValues(defs, args, variables)
}

// CompleteLeafValue completes a resolved value of a nullable scalar or
// enum field as Execute does: nil for null-ish values (nil, NaN) and for
// values the type serializes to nothing.
func CompleteLeafValue(t Leaf, v interface{}) interface{} {
	if isNullish(v) {
		return nil
	}
	return completeLeafValue(t, v)
}
