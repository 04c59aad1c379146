// Package auth is dohyo's identity model: roles with passwords, role
// membership and permissions on keyspaces, tables and roles, with the
// semantics of Cassandra's CassandraRoleManager, PasswordAuthenticator and
// CassandraAuthorizer.
//
// A Manager keeps the roles, memberships and grants in one metadata key of
// a backend's store (Store: the engine KV's GetMeta/PutMeta), so that every
// dohyo instance on the same store shares them; each instance caches what
// it read for Validity (Cassandra's roles_validity / permissions_validity)
// and reads it again after. Users configured with --auth-user are
// bootstrap superusers that exist on every instance that configures them.
//
// Front ends use the two small interfaces: Authenticator (a user name and a
// password to a role) and Authorizer (may a role use a permission on a
// resource). The CQL front end also runs the role and permission statements
// through Manager.Execute.
package auth
