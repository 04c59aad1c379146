"""PyPI gql against dohyo: the schema is fetched from the server by
introspection (gql's default query, which asks for input value
deprecation), documents are validated client-side before they are sent.
Usage: python gql_client.py URL KEYSPACE. Prints OK on success."""
import sys

from gql import Client, gql
from gql.transport.requests import RequestsHTTPTransport
from graphql import GraphQLError, print_schema

base, ks = sys.argv[1], sys.argv[2]


def client(url, **kw):
    return Client(transport=RequestsHTTPTransport(url=url, timeout=30, retries=0),
                  fetch_schema_from_transport=True, **kw)


def main():
    with client(f"{base}/graphql/{ks}") as s:
        sdl = print_schema(s.client.schema)
        assert "consistency: QueryConsistency = LOCAL_QUORUM" in sdl, sdl
        assert ("books(value: booksInput, filter: booksFilterInput, orderBy: [booksOrder], "
                "options: QueryOptions, groupBy: booksGroupByInput): booksResult") in sdl, sdl

        # Refused client-side: nothing is sent.
        try:
            s.execute(gql("{ books { values { nope } } }"))
            raise AssertionError("unknown field passed client-side validation")
        except GraphQLError as e:
            assert "nope" in str(e), e

        ins = gql("""mutation($v: booksInput!) {
            insertbooks(value: $v, options: {consistency: LOCAL_QUORUM}) { applied value { title pages } } }""")
        ins.variable_values = {"v": {"title": "Dune", "author": "Herbert", "pages": 412}}
        r = s.execute(ins)
        assert r == {"insertbooks": {"applied": True, "value": {"title": "Dune", "pages": 412}}}, r
        assert list(r["insertbooks"]["value"]) == ["title", "pages"], r

        # An explicit null, as a variable, writes NULL.
        upd = gql("""mutation($a: String) { updatebooks(value: {title: "Dune", author: $a}) { applied } }""")
        upd.variable_values = {"a": None}
        assert s.execute(upd) == {"updatebooks": {"applied": True}}

        q = gql("""query($t: String) { books(value: {title: $t}) { values { pages author title } } }""")
        q.variable_values = {"t": "Dune"}
        r = s.execute(q)
        assert r == {"books": {"values": [{"pages": 412, "author": None, "title": "Dune"}]}}, r
        assert list(r["books"]["values"][0]) == ["pages", "author", "title"], r

    with client(f"{base}/graphql-schema") as s:
        q = gql("""query($k: String!) { keyspace(name: $k) { name tables { name columns { name kind } } } }""")
        q.variable_values = {"k": ks}
        r = s.execute(q)
        assert [c["name"] for c in r["keyspace"]["tables"][0]["columns"]] == ["title", "author", "pages"], r
    print("OK")


if __name__ == "__main__":
    main()
