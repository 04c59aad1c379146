package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/gqlerrors"
	"github.com/graphql-go/graphql/language/ast"
	"github.com/graphql-go/graphql/language/parser"
	"github.com/graphql-go/graphql/language/source"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/schema"
	"github.com/dohyo/dohyo/telemetry"
)

// Config configures a Server.
type Config struct {
	// Coordinator executes every statement; required.
	Coordinator *proxy.Coordinator
	// Logger receives request failures; nil discards.
	Logger *slog.Logger
	// Authorizer decides every field's permission for the request's
	// identity (httpsec.IdentityFrom: authentication is the HTTP
	// listener's guard, httpsec.Guard); nil means AllowAll.
	Authorizer Authorizer
	// MaxDepth bounds the nesting of selection sets (introspection
	// excluded); 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxDocumentBytes bounds a query document's text; 0 means
	// DefaultMaxDocumentBytes.
	MaxDocumentBytes int
	// MaxNodes bounds the fields, fragment spreads, inline fragments,
	// directives and arguments a document spells out; 0 means
	// DefaultMaxNodes.
	MaxNodes int
	// MaxCost bounds a document's fields after fragment expansion, with
	// __schema counting 1000 and __type 100 more; 0 means DefaultMaxCost.
	MaxCost int
	// MaxPageSize bounds QueryOptions.pageSize; 0 means DefaultMaxPageSize.
	MaxPageSize int
	// DefaultPageSize is QueryOptions.pageSize when absent; 0 means 100,
	// as in Stargate.
	DefaultPageSize int
	// AsyncTimeout bounds @async mutations, which outlive their request;
	// 0 means 30s.
	AsyncTimeout time.Duration
	// Tracer traces requests, reading trace context from the traceparent
	// and tracestate headers; nil: no tracing.
	Tracer *telemetry.Tracer
	// Budgets bound each statement of a /graphql/{keyspace} request by
	// its keyspace's budget, counted from the request's arrival; clients
	// may tighten it with the X-Dohyo-Budget-Ms header. An exhausted
	// budget is a ReadTimeout/WriteTimeout error of the field.
	Budgets proxy.Budgets
	// OnBudgetExceeded, when set, is called with the keyspace of each
	// statement that ran out of budget (metrics).
	OnBudgetExceeded func(keyspace string)
	// SystemKeyspaces are the system keyspaces dohyo answers itself
	// (cqlserver.Server.SystemKeyspaces): listed by /graphql-schema and
	// queried at /graphql/{keyspace} like any other, as Stargate shows
	// them. Read-only.
	SystemKeyspaces map[string]*schema.Keyspace
	// NoCompiledPlans answers every request with graphql-go's executor,
	// also the plain table queries compiled plans answer otherwise
	// (plan.go): for comparisons, or should a plan misbehave.
	NoCompiledPlans bool

	// planCheck, when set (tests), makes every request a plan answers run
	// through graphql-go as well, and receives both responses.
	planCheck func(query string, vars map[string]any, fast, slow []byte)
}

// Defaults for Config.
const (
	DefaultMaxDepth        = 15
	DefaultMaxPageSize     = 1000
	DefaultDefaultPageSize = 100
	maxBodyBytes           = 8 << 20
	docCacheSize           = 256 // validated documents kept per schema
)

// Server serves the GraphQL API and the playground.
type Server struct {
	cfg     Config
	log     *slog.Logger
	scalars *scalarSet
	shared  *sharedTypes
	ddl     graphql.Schema
	ddlDocs *docCache

	playground *playgroundFiles

	mu  sync.Mutex
	dml map[string]*dmlSchema // by keyspace

	async sync.WaitGroup // @async mutations still running

	planRuns atomic.Int64 // requests a compiled plan answered

	bodies sync.Pool // *[]byte: request bodies being read (parseRequest)
}

// New validates cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Coordinator == nil {
		return nil, errors.New("graphql: Config.Coordinator is required")
	}
	if cfg.MaxDepth < 0 || cfg.MaxPageSize < 0 || cfg.DefaultPageSize < 0 || cfg.AsyncTimeout < 0 ||
		cfg.MaxDocumentBytes < 0 || cfg.MaxNodes < 0 || cfg.MaxCost < 0 {
		return nil, errors.New("graphql: MaxDepth, MaxPageSize, DefaultPageSize, AsyncTimeout, MaxDocumentBytes, MaxNodes and MaxCost must not be negative")
	}
	if cfg.MaxDepth == 0 {
		cfg.MaxDepth = DefaultMaxDepth
	}
	if cfg.MaxDocumentBytes == 0 {
		cfg.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	if cfg.MaxNodes == 0 {
		cfg.MaxNodes = DefaultMaxNodes
	}
	if cfg.MaxCost == 0 {
		cfg.MaxCost = DefaultMaxCost
	}
	if cfg.Authorizer == nil {
		cfg.Authorizer = AllowAll{}
	}
	if cfg.MaxPageSize == 0 {
		cfg.MaxPageSize = DefaultMaxPageSize
	}
	if cfg.DefaultPageSize == 0 {
		cfg.DefaultPageSize = min(DefaultDefaultPageSize, cfg.MaxPageSize)
	}
	if cfg.DefaultPageSize > cfg.MaxPageSize {
		return nil, fmt.Errorf("graphql: DefaultPageSize %d exceeds MaxPageSize %d", cfg.DefaultPageSize, cfg.MaxPageSize)
	}
	if cfg.AsyncTimeout == 0 {
		cfg.AsyncTimeout = defaultAsyncTimeout
	}
	s := &Server{
		cfg:     cfg,
		log:     cfg.Logger,
		scalars: newScalarSet(cql.NewTimeUUIDGenerator(time.Now)),
		dml:     map[string]*dmlSchema{},
		ddlDocs: newDocCache(docCacheSize),
	}
	s.bodies.New = func() any { b := make([]byte, 0, 4096); return &b }
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.shared = newSharedTypes(cfg.DefaultPageSize)
	ddl, err := s.buildDDL()
	if err != nil {
		return nil, fmt.Errorf("graphql: ddl schema: %w", err)
	}
	s.ddl = ddl
	if s.playground, err = loadPlayground(); err != nil {
		return nil, fmt.Errorf("graphql: playground assets: %w", err)
	}
	return s, nil
}

// Register adds the routes: /graphql/{keyspace}, /graphql-schema,
// /graphql (no default keyspace) and /playground.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("/graphql/{keyspace}", s.serveDML)
	mux.HandleFunc("/graphql", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "No default keyspace defined: use /graphql/{keyspace}")
	})
	mux.HandleFunc("/graphql-schema", s.serveDDL)
	s.registerPlayground(mux)
}

// Close waits for @async mutations still running (bounded by
// Config.AsyncTimeout each).
func (s *Server) Close() error {
	s.async.Wait()
	return nil
}

// validKeyspaceName accepts what Stargate accepts in the URL: \w+, one
// or more ASCII letters, digits and underscores (as regexp `^\w+$`, without
// a regexp per request).
func validKeyspaceName(ks string) bool {
	for i := 0; i < len(ks); i++ {
		c := ks[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return ks != ""
}

func (s *Server) serveDML(w http.ResponseWriter, r *http.Request) {
	ks := r.PathValue("keyspace")
	if !validKeyspaceName(ks) {
		writeError(w, http.StatusBadRequest, "Invalid keyspace name")
		return
	}
	r, rt, ok := s.begin(w, r, "/graphql/{keyspace}", ks)
	if !ok {
		return
	}
	defer rt.End()
	var req gqlRequest
	if status, msg := s.parseRequest(r, &req); msg != "" {
		writeError(w, status, msg)
		return
	}
	d, err := s.keyspaceSchema(r.Context(), ks)
	if err != nil {
		s.log.Error("graphql: keyspace schema", "keyspace", ks, "err", err)
		writeError(w, http.StatusInternalServerError, "Unexpected error while accessing keyspace: "+err.Error())
		return
	}
	if d == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Unknown keyspace '%s'", ks))
		return
	}
	s.run(w, r, &d.schema, d, d.docs, ks, &req)
}

func (s *Server) serveDDL(w http.ResponseWriter, r *http.Request) {
	if deadline, ok := httpsec.RequestDeadline(r.Context()); ok {
		ctx, cancel := context.WithDeadline(r.Context(), deadline)
		defer cancel()
		r = r.WithContext(ctx)
	}
	r, rt, _ := s.begin(w, r, "/graphql-schema", "")
	defer rt.End()
	var req gqlRequest
	if status, msg := s.parseRequest(r, &req); msg != "" {
		writeError(w, status, msg)
		return
	}
	s.run(w, r, &s.ddl, nil, s.ddlDocs, "", &req)
}

// keyspaceSchema returns the generated schema of a keyspace, rebuilding it
// when the keyspace changed in the catalog; nil when it does not exist.
func (s *Server) keyspaceSchema(ctx context.Context, name string) (*dmlSchema, error) {
	cat, err := s.cfg.Coordinator.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	ks := cat.Keyspace(name)
	if ks == nil {
		ks = s.cfg.SystemKeyspaces[name]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks == nil {
		delete(s.dml, name)
		return nil, nil
	}
	// Catalog snapshots are immutable: the same *Keyspace means the same
	// tables, whatever happened to other keyspaces.
	if d := s.dml[name]; d != nil && d.ks == ks {
		return d, nil
	}
	// Backends that reload their catalog (Cassandra) hand out new objects
	// for unchanged keyspaces: rebuild only when the definitions differ.
	sig := keyspaceSignature(ks)
	if d := s.dml[name]; d != nil && d.sig == sig {
		d.ks = ks
		return d, nil
	}
	d, err := s.buildDML(ks)
	if err != nil {
		return nil, err
	}
	d.sig = sig
	s.dml[name] = d
	return d, nil
}

// keyspaceSignature renders a keyspace's definition (its CREATE statements).
func keyspaceSignature(ks *schema.Keyspace) string {
	var b strings.Builder
	b.WriteString(ks.CreateStatement())
	for _, t := range ks.TableNames() {
		b.WriteString(ks.Tables[t].CreateStatement())
	}
	return b.String()
}

// gqlRequest is a GraphQL request, however it arrived.
type gqlRequest struct {
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables"`
	OperationName string         `json:"operationName"`
}

// parseRequest reads a GET (query parameters), a JSON POST or an
// application/graphql POST into req (the caller's: one allocation less);
// it returns an HTTP status and message when the request is unusable.
func (s *Server) parseRequest(r *http.Request, req *gqlRequest) (int, string) {
	var q url.Values // nil (no parameters) without a query string
	if r.URL.RawQuery != "" {
		q = r.URL.Query()
	}
	switch r.Method {
	case http.MethodGet:
		req.Query, req.OperationName = q.Get("query"), q.Get("operationName")
		if req.Query == "" {
			return http.StatusBadRequest, "You must provide a GraphQL query as a URL parameter"
		}
		if v := q.Get("variables"); v != "" {
			vars, err := decodeVariables([]byte(v))
			if err != nil {
				return http.StatusBadRequest, "Could not parse variables: " + err.Error()
			}
			req.Variables = vars
		}
		return 0, ""
	case http.MethodPost:
	default:
		return http.StatusMethodNotAllowed, "Only GET and POST are supported"
	}
	ct := r.Header.Get("Content-Type")
	mt := "application/json"
	if ct != "" && ct != mt {
		var err error
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			return http.StatusUnsupportedMediaType, "Invalid Content-Type: " + ct
		}
	}
	bp := s.bodies.Get().(*[]byte)
	defer s.bodies.Put(bp) // what is kept of the body was copied out of it
	body, err := readBody(r.Body, (*bp)[:0], maxBodyBytes)
	if cap(body) <= 64<<10 { // do not keep huge buffers alive
		*bp = body
	}
	if err != nil {
		return http.StatusRequestEntityTooLarge, "Could not read the request body: " + err.Error()
	}
	switch mt {
	case "application/graphql":
		req.Query = string(body)
		if strings.TrimSpace(req.Query) == "" {
			return http.StatusBadRequest, "You must provide a GraphQL query in the request body"
		}
		return 0, ""
	case "application/json":
	default:
		return http.StatusUnsupportedMediaType, "Unsupported Content-Type " + mt +
			": use application/json or application/graphql"
	}
	// The bodies clients send decode without encoding/json (scanBody);
	// everything else, errors included, with it.
	if len(bytes.TrimSpace(body)) > 0 && !scanBody(body, req) {
		if status, msg := decodeJSONRequest(body, req); msg != "" {
			return status, msg
		}
	}
	fromURL := q.Get("query")
	switch {
	case req.Query == "" && fromURL == "":
		return http.StatusBadRequest, "You must provide a GraphQL query, either as a query parameter or in the request body"
	case req.Query != "" && fromURL != "":
		return http.StatusBadRequest, "You can't provide a GraphQL query both as a query parameter and in the request body"
	case req.Query == "":
		req.Query = fromURL
	}
	return 0, ""
}

// readBody appends what r yields to buf, as io.ReadAll of an
// http.MaxBytesReader(nil, r, limit) returns it: at most limit bytes
// (reading at most one more), with an *http.MaxBytesError when there are
// more, and r's error as it is (the caller says what failed).
func readBody(r io.Reader, buf []byte, limit int) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), limit+1)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return buf[:limit], &http.MaxBytesError{Limit: int64(limit)}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err // unwrapped, as io.ReadAll returns it
		}
	}
}

// decodeJSONRequest decodes a JSON request body with encoding/json into
// req, or returns the HTTP status and message saying what is wrong: the
// body or its variables. A body with variables is decoded in one pass; one
// without (or one that does not decode) by json.Unmarshal.
func decodeJSONRequest(body []byte, req *gqlRequest) (int, string) {
	if bytes.Contains(body, []byte(`"variables"`)) && decodeBody(body, req) {
		return 0, ""
	}
	var raw struct {
		Query         string          `json:"query"`
		Variables     json.RawMessage `json:"variables"`
		OperationName string          `json:"operationName"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return http.StatusBadRequest, "Could not parse the JSON body: " + err.Error()
	}
	req.Query, req.OperationName = raw.Query, raw.OperationName
	if len(raw.Variables) > 0 && string(raw.Variables) != "null" {
		vars, err := decodeVariables(raw.Variables)
		if err != nil {
			return http.StatusBadRequest, "Could not parse variables: " + err.Error()
		}
		req.Variables = vars
	}
	return 0, ""
}

// decodeBody decodes a JSON request body in one pass (variables with
// integers kept exact, as decodeVariables does); false when the body or
// its variables are not valid, for the caller to say which.
func decodeBody(body []byte, req *gqlRequest) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var r gqlRequest
	if dec.Decode(&r) != nil || len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		return false
	}
	normalizeJSON(r.Variables)
	*req = r
	return true
}

// decodeVariables keeps integers exact (BigInt and Varint need more than
// float64's 53 bits).
func decodeVariables(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var vars map[string]any
	if err := dec.Decode(&vars); err != nil {
		return nil, err
	}
	normalizeJSON(vars)
	return vars, nil
}

// run parses, checks depth, validates and executes a request against sch.
// Valid documents are cached per schema: validation costs more than the
// rest of a point read, and clients repeat the same few documents.
// d is the keyspace schema sch belongs to (nil for /graphql-schema).
func (s *Server) run(w http.ResponseWriter, r *http.Request, sch *graphql.Schema, d *dmlSchema, docs *docCache, keyspace string, req *gqlRequest) {
	cd, ok := docs.get(req.Query)
	if !ok {
		doc, err := s.checkDocument(sch, req.Query)
		if err != nil {
			s.log.Debug("graphql: document refused", "keyspace", keyspace, "remote", r.RemoteAddr, "err", err)
			if verr := (*validationErrors)(nil); errors.As(err, &verr) {
				writeResult(w, &graphql.Result{Errors: verr.errs})
			} else {
				writeResult(w, &graphql.Result{Errors: gqlerrors.FormatErrors(err)})
			}
			return
		}
		cd = &cachedDoc{doc: doc, shape: newResponseShape(doc)}
		docs.put(req.Query, cd)
	}
	doc := cd.doc
	// GraphQL over HTTP: a GET never changes anything (an <img src> on a
	// foreign page must not drop a keyspace).
	if r.Method == http.MethodGet && isMutation(doc, req.OperationName) {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "Mutations need POST: GET requests may only run queries")
		return
	}
	session := s.cfg.Coordinator.NewSession(bindings.SourceGraphQL)
	if id, ok := httpsec.IdentityFrom(r.Context()); ok {
		session.SetRole(id) // the coordinator checks each statement as for CQL
	}
	if keyspace != "" {
		session.SetKeyspace(keyspace)
	}
	ctx := withState(r.Context(), session)
	bp := responseBuffers.Get().(*[]byte)
	b, errs := s.answer(ctx, sch, d, cd, req, (*bp)[:0])
	for _, e := range errs {
		s.log.Debug("graphql: request error", "keyspace", keyspace, "err", e.Message)
	}
	if len(errs) > 0 {
		telemetry.FromContext(ctx).Fail("graphql", errs[0].Message)
	}
	writeBody(w, bp, b)
}

// answer executes a request, appending its response to b: with its
// compiled plan when it has one (plan.go), else with graphql-go.
func (s *Server) answer(ctx context.Context, sch *graphql.Schema, d *dmlSchema, cd *cachedDoc, req *gqlRequest,
	b []byte) ([]byte, []gqlerrors.FormattedError) {
	if p := s.planFor(d, cd, req.OperationName); p != nil {
		if out, errs, ok := s.runPlan(ctx, d, p, cd.shape, req.Variables, b); ok {
			s.planRuns.Add(1)
			if s.cfg.planCheck != nil {
				slow, _ := s.executeGraphQL(ctx, sch, cd, req, nil)
				s.cfg.planCheck(req.Query, req.Variables, out, slow)
			}
			return out, errs
		}
		b = b[:0]
	}
	return s.executeGraphQL(ctx, sch, cd, req, b)
}

// executeGraphQL runs a request with graphql-go's executor.
func (s *Server) executeGraphQL(ctx context.Context, sch *graphql.Schema, cd *cachedDoc, req *gqlRequest, b []byte) ([]byte, []gqlerrors.FormattedError) {
	res := graphql.Execute(graphql.ExecuteParams{
		Schema:        *sch,
		AST:           cd.doc,
		OperationName: req.OperationName,
		Args:          req.Variables,
		Context:       ctx,
		// Resolvers pass ctx to the coordinator, which stops at its
		// deadline: no goroutine per request is needed to return on time.
		InCallerGoroutine: true,
	})
	if res.Errors != nil && len(res.Errors) == 0 {
		res.Errors = nil
	}
	return appendOrderedResult(b, res, cd.shape, cd.shape.operation(req.OperationName)), res.Errors
}

// checkDocument parses and validates a query: size, nodes, depth and
// cost first (cheap, linear), graphql-go's validator only after them.
func (s *Server) checkDocument(sch *graphql.Schema, query string) (*ast.Document, error) {
	if len(query) > s.cfg.MaxDocumentBytes {
		return nil, fmt.Errorf("Query document of %d bytes exceeds the maximum of %d", len(query), s.cfg.MaxDocumentBytes)
	}
	doc, err := parser.Parse(parser.ParseParams{Source: source.NewSource(&source.Source{
		Body: []byte(query), Name: "GraphQL request",
	})})
	if err != nil {
		return nil, err
	}
	lim := docLimits{maxNodes: s.cfg.MaxNodes, maxCost: s.cfg.MaxCost, maxDepth: s.cfg.MaxDepth}
	if _, err := lim.checkDocument(doc); err != nil {
		return nil, err
	}
	if err := validate(sch, doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// validate runs graphql-go's validator, turning its panics on malformed
// documents the parser let through into an error.
func validate(sch *graphql.Schema, doc *ast.Document) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("Invalid document (%v)", p)
		}
	}()
	if v := graphql.ValidateDocument(sch, doc, nil); !v.IsValid {
		return &validationErrors{v.Errors}
	}
	return nil
}

// validationErrors carries graphql-go's validation errors through
// checkDocument's error.
type validationErrors struct{ errs []gqlerrors.FormattedError }

func (v *validationErrors) Error() string {
	if len(v.errs) == 0 {
		return "invalid document"
	}
	return v.errs[0].Message
}

// isMutation tells whether the operation a request selects is a mutation
// (an unknown or ambiguous selection is left to execution to report).
func isMutation(doc *ast.Document, name string) bool {
	var ops []*ast.OperationDefinition
	for _, d := range doc.Definitions {
		if op, ok := d.(*ast.OperationDefinition); ok {
			if name == "" || (op.Name != nil && op.Name.Value == name) {
				ops = append(ops, op)
			}
		}
	}
	return len(ops) == 1 && ops[0].Operation == ast.OperationTypeMutation
}

// cqlError exposes a CQL error's code as a GraphQL error extension.
type cqlError struct{ e *bindings.Error }

func (c *cqlError) Error() string { return c.e.Error() }
func (c *cqlError) Extensions() map[string]any {
	return map[string]any{"code": c.e.Code.String()}
}

// withCQLErrors makes CQL errors from a resolver (or its thunk) carry
// their code.
func withCQLErrors(fn graphql.FieldResolveFn) graphql.FieldResolveFn {
	return func(p graphql.ResolveParams) (any, error) {
		v, err := fn(p)
		if err != nil {
			return nil, wrapCQLError(err)
		}
		if th, ok := v.(func() (any, error)); ok {
			return func() (any, error) {
				v, err := th()
				return v, wrapCQLError(err)
			}, nil
		}
		return v, nil
	}
}

func wrapCQLError(err error) error {
	var be *bindings.Error
	if err != nil && errors.As(err, &be) {
		return &cqlError{e: be}
	}
	return err
}

func writeResult(w http.ResponseWriter, res *graphql.Result) {
	if res.Errors != nil && len(res.Errors) == 0 {
		res.Errors = nil
	}
	out := map[string]any{}
	if res.Data != nil {
		out["data"] = res.Data
	}
	if len(res.Errors) > 0 {
		out["errors"] = res.Errors
	}
	writeJSON(w, http.StatusOK, out)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"errors": []any{map[string]any{"message": msg}}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"errors":[{"message":"could not encode the response"}]}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// cachedDoc is a validated document and what the response writer needs
// of it.
type cachedDoc struct {
	doc   *ast.Document
	shape *responseShape
	plans sync.Map // operation name -> *queryPlan (nil: graphql-go answers)
}

// docCache keeps validated documents of one schema by query text. Parsed
// documents are read-only during execution, so requests share them.
type docCache struct {
	max int
	mu  sync.Mutex
	m   map[string]*cachedDoc
}

func newDocCache(max int) *docCache {
	return &docCache{max: max, m: map[string]*cachedDoc{}}
}

func (c *docCache) get(q string) (*cachedDoc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[q]
	return d, ok
}

func (c *docCache) put(q string, d *cachedDoc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m) // simple bound: re-validating is only a cost
	}
	c.m[q] = d
}
