// graphql-js (npm "graphql") against dohyo: fetches each schema by
// introspection, builds a client schema from it, validates documents
// client-side and runs them. Usage: node graphqljs_client.cjs NODE_MODULES URL KEYSPACE
// Prints OK on success; exits non-zero with the reason otherwise.
"use strict";
const path = require("path");
const [nodeModules, base, ks] = process.argv.slice(2);
const g = require(path.join(nodeModules, "graphql"));

function check(cond, msg) {
  if (!cond) {
    console.error("FAIL: " + msg);
    process.exit(1);
  }
}

async function post(url, query, variables) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  check(res.status === 200, `${url}: status ${res.status}: ${text}`);
  return { body: JSON.parse(text), text };
}

async function clientSchema(url, options) {
  const { body } = await post(url, g.getIntrospectionQuery(options));
  check(!body.errors, `introspection ${JSON.stringify(options)}: ${JSON.stringify(body.errors)}`);
  const schema = g.buildClientSchema(body.data); // throws on a malformed result
  const errs = g.validateSchema(schema);
  check(errs.length === 0, "schema invalid: " + errs.map(String).join("; "));
  return schema;
}

function valid(schema, doc) {
  const errs = g.validate(schema, g.parse(doc));
  check(errs.length === 0, `client-side validation of ${doc}: ${errs.map(String).join("; ")}`);
  return doc;
}

async function main() {
  const dml = `${base}/graphql/${ks}`;
  const all = { descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true,
    schemaDescription: true, inputValueDeprecation: true };
  await clientSchema(dml, undefined); // the default query
  const schema = await clientSchema(dml, all);
  const sdl = g.printSchema(schema);
  check(sdl.includes("consistency: QueryConsistency = LOCAL_QUORUM"), "enum default in SDL:\n" + sdl);
  check(/books\(value: booksInput, filter: booksFilterInput, orderBy: \[booksOrder\], options: QueryOptions, groupBy: booksGroupByInput\)/.test(sdl),
    "argument order in SDL:\n" + sdl);
  check(/type books \{\n(\s+"""[^]*?"""\n)?\s+title: String\n\s+author: String\n\s+pages: Int\n/.test(sdl), "column order in SDL:\n" + sdl);

  // A document the server would refuse is refused client-side too.
  const bad = g.validate(schema, g.parse("{ books { values { nope } } }"));
  check(bad.length === 1 && /nope/.test(bad[0].message), "unknown field not caught: " + bad.map(String));

  let r = await post(dml, valid(schema, `mutation($v: booksInput!) {
    insertbooks(value: $v) { applied value { title pages } } }`), { v: { title: "Dune", author: "Herbert", pages: 412 } });
  check(r.text === '{"data":{"insertbooks":{"applied":true,"value":{"title":"Dune","pages":412}}}}', "insert: " + r.text);
  r = await post(dml, valid(schema, `mutation { updatebooks(value: {title: "Dune", author: null}) { applied } }`));
  check(!r.body.errors && r.body.data.updatebooks.applied === true, "update with null: " + r.text);
  r = await post(dml, valid(schema, `query($t: String) { books(value: {title: $t}, options: {consistency: LOCAL_ONE}) {
    values { pages author title } } }`), { t: "Dune" });
  check(r.text === '{"data":{"books":{"values":[{"pages":412,"author":null,"title":"Dune"}]}}}', "query: " + r.text);

  // The schema API too.
  const ddl = await clientSchema(`${base}/graphql-schema`, all);
  r = await post(`${base}/graphql-schema`, valid(ddl, `query($k: String!) { keyspace(name: $k) { name tables { name columns { name kind type { basic } } } } }`), { k: ks });
  check(JSON.stringify(r.body.data.keyspace.tables[0].columns.map((c) => c.name)) === '["title","author","pages"]', "describe: " + r.text);
  console.log("OK");
}

main().catch((e) => {
  console.error("FAIL: " + (e && e.stack ? e.stack : e));
  process.exit(1);
});
