package graphql

import (
	"errors"
	"fmt"

	"github.com/graphql-go/graphql/language/ast"
)

// Defaults of the document limits (Config.MaxDocumentBytes, MaxNodes,
// MaxCost). They are checked on the parsed document before graphql-go's
// validator runs: some of its rules are quadratic in the number of fields
// (6,000 repeats of one field took 18.6 s to validate), and a document
// whose fragments spread each other twice grows exponentially when
// expanded.
const (
	DefaultMaxDocumentBytes = 64 << 10
	DefaultMaxNodes         = 1000
	DefaultMaxCost          = 10000
	// schemaIntrospectionCost is what one __schema field costs, on top of
	// its sub-selections: its answer grows with the whole schema. GraphiQL
	// asks for it once; 3,000 aliased copies in one document must not run.
	schemaIntrospectionCost = 1000
	// typeIntrospectionCost is the cost of one __type field.
	typeIntrospectionCost = 100
)

// docLimits bounds one document.
type docLimits struct {
	maxNodes, maxCost, maxDepth int
}

// docShape is what checking a document measured.
type docShape struct {
	nodes int // fields, spreads, inline fragments, directives and arguments as written
	cost  int // fields after fragment expansion (introspection weighted), capped at maxCost+1
	depth int // deepest nesting, introspection excluded
}

// fragInfo is the memoised cost and depth of one fragment.
type fragInfo struct {
	cost, depth int
	done        bool
	visiting    bool
}

// checkDocument measures doc and returns an error naming the first limit
// it exceeds. Fragments are expanded by a memoised walk: each fragment is
// measured once however often it is spread, so the check is linear in the
// document's size whatever the expansion would be.
func (l docLimits) checkDocument(doc *ast.Document) (docShape, error) {
	var sh docShape
	frags := map[string]*ast.FragmentDefinition{}
	for _, d := range doc.Definitions {
		switch x := d.(type) {
		case *ast.FragmentDefinition:
			if x.Name != nil {
				frags[x.Name.Value] = x
			}
			sh.nodes += len(x.Directives) + countNodes(x.SelectionSet)
		case *ast.OperationDefinition:
			for _, v := range x.VariableDefinitions {
				if v == nil || v.Type == nil || v.Variable == nil || v.Variable.Name == nil {
					return sh, errors.New("Syntax Error: a variable definition needs a name and a type")
				}
			}
			sh.nodes += len(x.Directives) + len(x.VariableDefinitions) + countNodes(x.SelectionSet)
		}
	}
	if sh.nodes > l.maxNodes {
		return sh, fmt.Errorf("Query has %d fields, fragments, directives and arguments, more than the maximum of %d", sh.nodes, l.maxNodes)
	}
	w := &costWalk{frags: frags, info: map[string]*fragInfo{}, limit: l.maxCost + 1}
	for _, d := range doc.Definitions {
		if op, ok := d.(*ast.OperationDefinition); ok {
			c, dep, err := w.selections(op.SelectionSet)
			if err != nil {
				return sh, err
			}
			sh.cost = w.add(sh.cost, c)
			sh.depth = max(sh.depth, dep)
		}
	}
	if sh.depth > l.maxDepth {
		return sh, fmt.Errorf("Query depth %d exceeds the maximum depth of %d", sh.depth, l.maxDepth)
	}
	if sh.cost > l.maxCost {
		return sh, fmt.Errorf("Query cost exceeds the maximum of %d (each field counts 1 after fragment expansion, __schema %d, __type %d)",
			l.maxCost, schemaIntrospectionCost, typeIntrospectionCost)
	}
	return sh, nil
}

// countNodes counts what a selection set spells out, fragments not followed.
func countNodes(set *ast.SelectionSet) int {
	if set == nil {
		return 0
	}
	n := 0
	for _, s := range set.Selections {
		n++
		switch x := s.(type) {
		case *ast.Field:
			n += len(x.Directives) + len(x.Arguments) + countNodes(x.SelectionSet)
		case *ast.InlineFragment:
			n += len(x.Directives) + countNodes(x.SelectionSet)
		case *ast.FragmentSpread:
			n += len(x.Directives)
		}
	}
	return n
}

// costWalk measures selection sets, memoising fragments; costs saturate at
// limit so that no sum overflows.
type costWalk struct {
	frags map[string]*ast.FragmentDefinition
	info  map[string]*fragInfo
	limit int
}

func (w *costWalk) add(a, b int) int { return min(a+b, w.limit) }

func (w *costWalk) selections(set *ast.SelectionSet) (cost, depth int, err error) {
	if set == nil {
		return 0, 0, nil
	}
	for _, s := range set.Selections {
		c, d := 0, 0
		switch x := s.(type) {
		case *ast.Field:
			sub, subDepth, err := w.selections(x.SelectionSet)
			if err != nil {
				return 0, 0, err
			}
			c = w.add(1, sub)
			switch fieldName(x) {
			case "__schema":
				c = w.add(c, schemaIntrospectionCost)
			case "__type":
				c = w.add(c, typeIntrospectionCost)
			default:
				d = 1 + subDepth
			}
		case *ast.InlineFragment:
			if c, d, err = w.selections(x.SelectionSet); err != nil {
				return 0, 0, err
			}
		case *ast.FragmentSpread:
			if c, d, err = w.fragment(x); err != nil {
				return 0, 0, err
			}
		}
		cost = w.add(cost, c)
		depth = max(depth, d)
	}
	return cost, depth, nil
}

func (w *costWalk) fragment(sp *ast.FragmentSpread) (cost, depth int, err error) {
	if sp.Name == nil {
		return 0, 0, nil
	}
	name := sp.Name.Value
	fi := w.info[name]
	if fi == nil {
		fi = &fragInfo{}
		w.info[name] = fi
	}
	switch {
	case fi.done:
		return fi.cost, fi.depth, nil
	case fi.visiting:
		return 0, 0, fmt.Errorf("Cannot spread fragment \"%s\" within itself", name)
	}
	fd := w.frags[name]
	if fd == nil {
		return 0, 0, nil // unknown fragments are reported by validation
	}
	fi.visiting = true
	fi.cost, fi.depth, err = w.selections(fd.SelectionSet)
	fi.visiting, fi.done = false, err == nil
	return fi.cost, fi.depth, err
}
