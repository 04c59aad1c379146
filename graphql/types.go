package graphql

import (
	"fmt"
	"strings"

	"github.com/graphql-go/graphql"

	"github.com/dohyo/dohyo/cql"
)

// typeCache builds the GraphQL types of column values for one keyspace
// schema, as Stargate's FieldInputTypeCache, FieldOutputTypeCache and
// FieldFilterInputTypeCache: frozen and non-frozen types map to the same
// GraphQL type, sets become lists, maps become lists of key/value entry
// objects, tuples objects with item0..itemN, and UDTs objects named
// <udt>Udt (<udt>UdtInput for input).
type typeCache struct {
	scalars  *scalarSet
	out      map[string]graphql.Output
	in       map[string]graphql.Input
	filter   map[string]graphql.Input
	named    map[string]graphql.Type // by GraphQL name: one instance per name
	warnings *[]string
}

func newTypeCache(scalars *scalarSet, warnings *[]string) *typeCache {
	return &typeCache{
		scalars:  scalars,
		out:      map[string]graphql.Output{},
		in:       map[string]graphql.Input{},
		filter:   map[string]graphql.Input{},
		named:    map[string]graphql.Type{},
		warnings: warnings,
	}
}

// typeKey identifies a CQL type modulo frozenness and set/list.
func typeKey(t *cql.Type) string {
	var sb strings.Builder
	writeTypeKey(&sb, t)
	return sb.String()
}

func writeTypeKey(sb *strings.Builder, t *cql.Type) {
	switch t.Kind {
	case cql.KindList, cql.KindSet, cql.KindVector:
		sb.WriteString("list<")
		writeTypeKey(sb, t.Elems[0])
		sb.WriteByte('>')
	case cql.KindMap, cql.KindTuple:
		sb.WriteString(t.Kind.String())
		sb.WriteByte('<')
		for i, e := range t.Elems {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeTypeKey(sb, e)
		}
		sb.WriteByte('>')
	case cql.KindUDT:
		sb.WriteString("udt:" + t.Keyspace + "." + t.Name)
	case cql.KindText, cql.KindAscii:
		sb.WriteString(t.Kind.String())
	default:
		sb.WriteString(t.Kind.String())
	}
}

// scalar returns the GraphQL scalar of a CQL scalar kind.
func (c *typeCache) scalar(k cql.Kind) (graphql.Type, error) {
	if st, ok := c.scalars.byKind[k]; ok {
		return st, nil
	}
	return nil, fmt.Errorf("Unsupported CQL type %s", k)
}

// register keeps one instance per GraphQL name, as graphql-go requires.
func (c *typeCache) register(t graphql.Type) graphql.Type {
	if prev, ok := c.named[t.Name()]; ok {
		return prev
	}
	c.named[t.Name()] = t
	return t
}

// output returns the GraphQL output type of a column of type t.
func (c *typeCache) output(t *cql.Type) (graphql.Output, error) {
	key := typeKey(t)
	if o, ok := c.out[key]; ok {
		return o, nil
	}
	var o graphql.Output
	switch t.Kind {
	case cql.KindList, cql.KindSet, cql.KindVector:
		e, err := c.output(t.Elems[0])
		if err != nil {
			return nil, err
		}
		o = graphql.NewList(e)
	case cql.KindMap:
		k, err := c.output(t.Elems[0])
		if err != nil {
			return nil, err
		}
		v, err := c.output(t.Elems[1])
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("Entry%sKey%sValue", compositeName(k), compositeName(v))
		o = graphql.NewList(c.register(graphql.NewObject(graphql.ObjectConfig{
			Name:        name,
			Description: "Represents a key/value type for a Map",
			Fields: graphql.Fields{
				"key":   {Type: graphql.NewNonNull(k)},
				"value": {Type: v},
			},
		})).(graphql.Output))
	case cql.KindTuple:
		fields := graphql.Fields{}
		var name strings.Builder
		name.WriteString("Tuple")
		for i, et := range t.Elems {
			e, err := c.output(et)
			if err != nil {
				return nil, err
			}
			name.WriteString(compositeName(e))
			fields[fmt.Sprintf("item%d", i)] = &graphql.Field{Type: e}
		}
		o = c.register(graphql.NewObject(graphql.ObjectConfig{
			Name:        name.String(),
			Description: fmt.Sprintf("Represents a Tuple type with %d items", len(t.Elems)),
			Fields:      fields,
		})).(graphql.Output)
	case cql.KindUDT:
		fields := graphql.Fields{}
		var order []string
		for i, f := range t.Fields {
			e, err := c.output(t.Elems[i])
			if err != nil {
				*c.warnings = append(*c.warnings, fmt.Sprintf(
					"Could not create output type for field %s in UDT %s, skipping (%v)", f, t.Name, err))
				continue
			}
			fields[toGraphQLName(f, identColumn)] = &graphql.Field{Type: e}
			order = append(order, toGraphQLName(f, identColumn))
		}
		if len(fields) == 0 {
			return nil, fmt.Errorf("UDT %s has no representable fields", t.Name)
		}
		o = c.register(graphql.NewObject(graphql.ObjectConfig{
			Name:       toGraphQLName(t.Name, identUDT),
			Fields:     fields,
			FieldOrder: order,
		})).(graphql.Output)
	default:
		st, err := c.scalar(t.Kind)
		if err != nil {
			return nil, err
		}
		o = st.(graphql.Output)
	}
	c.out[key] = o
	return o, nil
}

// input returns the GraphQL input type of a column of type t.
func (c *typeCache) input(t *cql.Type) (graphql.Input, error) {
	key := typeKey(t)
	if in, ok := c.in[key]; ok {
		return in, nil
	}
	var in graphql.Input
	switch t.Kind {
	case cql.KindList, cql.KindSet, cql.KindVector:
		e, err := c.input(t.Elems[0])
		if err != nil {
			return nil, err
		}
		in = graphql.NewList(e)
	case cql.KindMap:
		k, err := c.input(t.Elems[0])
		if err != nil {
			return nil, err
		}
		v, err := c.input(t.Elems[1])
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("Entry%sKey%sValueInput", compositeName(k), compositeName(v))
		in = graphql.NewList(c.register(graphql.NewInputObject(graphql.InputObjectConfig{
			Name:        name,
			Description: "Represents a key/value type for a Map",
			Fields: graphql.InputObjectConfigFieldMap{
				"key":   {Type: graphql.NewNonNull(k)},
				"value": {Type: v},
			},
		})).(graphql.Input))
	case cql.KindTuple:
		fields := graphql.InputObjectConfigFieldMap{}
		var name strings.Builder
		name.WriteString("Tuple")
		for i, et := range t.Elems {
			e, err := c.input(et)
			if err != nil {
				return nil, err
			}
			name.WriteString(compositeName(e))
			fields[fmt.Sprintf("item%d", i)] = &graphql.InputObjectFieldConfig{Type: e}
		}
		name.WriteString("Input")
		in = c.register(graphql.NewInputObject(graphql.InputObjectConfig{
			Name:        name.String(),
			Description: fmt.Sprintf("Represents a Tuple input type with %d items", len(t.Elems)),
			Fields:      fields,
		})).(graphql.Input)
	case cql.KindUDT:
		fields := graphql.InputObjectConfigFieldMap{}
		var order []string
		for i, f := range t.Fields {
			e, err := c.input(t.Elems[i])
			if err != nil {
				*c.warnings = append(*c.warnings, fmt.Sprintf(
					"Could not create input type for field %s in UDT %s, skipping (%v)", f, t.Name, err))
				continue
			}
			fields[toGraphQLName(f, identColumn)] = &graphql.InputObjectFieldConfig{Type: e}
			order = append(order, toGraphQLName(f, identColumn))
		}
		if len(fields) == 0 {
			return nil, fmt.Errorf("UDT %s has no representable fields", t.Name)
		}
		in = c.register(graphql.NewInputObject(graphql.InputObjectConfig{
			Name:       toGraphQLName(t.Name, identUDT) + "Input",
			Fields:     fields,
			FieldOrder: order,
		})).(graphql.Input)
	default:
		st, err := c.scalar(t.Kind)
		if err != nil {
			return nil, err
		}
		in = st.(graphql.Input)
	}
	c.in[key] = in
	return in, nil
}

// filterInput returns the filter type of a column of type t: the basic
// comparisons (eq notEq gt gte lt lte in) on the whole value, plus
// contains for lists and sets, and containsKey, contains and
// containsEntry for maps.
func (c *typeCache) filterInput(t *cql.Type) (graphql.Input, error) {
	key := typeKey(t)
	if f, ok := c.filter[key]; ok {
		return f, nil
	}
	in, err := c.input(t)
	if err != nil {
		return nil, err
	}
	fields := graphql.InputObjectConfigFieldMap{
		"eq":    {Type: in},
		"notEq": {Type: in},
		"gt":    {Type: in},
		"gte":   {Type: in},
		"lt":    {Type: in},
		"lte":   {Type: in},
		"in":    {Type: graphql.NewList(in)},
	}
	switch t.Kind {
	case cql.KindList, cql.KindSet:
		e, _ := c.input(t.Elems[0])
		fields["contains"] = &graphql.InputObjectFieldConfig{Type: e}
	case cql.KindMap:
		k, _ := c.input(t.Elems[0])
		v, _ := c.input(t.Elems[1])
		entry := in.(*graphql.List).OfType.(graphql.Input)
		fields["containsKey"] = &graphql.InputObjectFieldConfig{Type: k}
		fields["contains"] = &graphql.InputObjectFieldConfig{Type: v}
		fields["containsEntry"] = &graphql.InputObjectFieldConfig{Type: entry}
	}
	f := c.register(graphql.NewInputObject(graphql.InputObjectConfig{
		Name:   filterName(in) + "FilterInput",
		Fields: fields,
	})).(graphql.Input)
	c.filter[key] = f
	return f, nil
}

// compositeName is how a type appears inside Entry... and Tuple... names.
func compositeName(t graphql.Type) string {
	switch x := t.(type) {
	case *graphql.List:
		return "List" + compositeName(x.OfType)
	case *graphql.NonNull:
		return compositeName(x.OfType)
	}
	return t.Name()
}

// filterName is how an input type appears in ...FilterInput names.
func filterName(t graphql.Type) string {
	switch x := t.(type) {
	case *graphql.List:
		return "List" + filterName(x.OfType)
	case *graphql.InputObject:
		return strings.TrimSuffix(x.Name(), "Input")
	}
	return t.Name()
}
