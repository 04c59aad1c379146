// Package bindingtest is the conformance suite every binding must pass: CQL
// scenarios kept as data files under testdata/, run against any Backend.
package bindingtest
