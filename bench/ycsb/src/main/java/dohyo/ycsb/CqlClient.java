package dohyo.ycsb;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * A YCSB binding for any CQL endpoint (Cassandra, or dohyo in front of any backend), over the
 * DataStax Java driver 4.x. Table layout: {@code usertable(y_id varchar PRIMARY KEY, field0 ..
 * field9 varchar)} in keyspace {@code cassandra.keyspace} (default ycsb), created by {@link
 * Setup}.
 *
 * <p>Properties: {@code cassandra.hosts} (host:port list), {@code cassandra.keyspace}, {@code
 * cassandra.readconsistencylevel} / {@code cassandra.writeconsistencylevel} (default ONE), {@code
 * cassandra.localdc}, {@code cassandra.username} / {@code cassandra.password}, {@code
 * cassandra.requesttimeoutms} (default 12000).
 */
public final class CqlClient extends DB {
  static final String KEY = "y_id";

  // YCSB calls init() once per client thread; all threads of a run share one session and one
  // cache of prepared statements.
  private static final Object LOCK = new Object();
  private static Shared shared; // guarded by LOCK
  private static int users; // guarded by LOCK

  private Shared s;

  private static final class Shared {
    final CqlSession session;
    final ConsistencyLevel readCl;
    final ConsistencyLevel writeCl;
    final Map<String, PreparedStatement> prepared = new ConcurrentHashMap<>();
    final AtomicInteger errors = new AtomicInteger();

    Shared(Properties p) {
      readCl = level(p, Connect.READ_CL);
      writeCl = level(p, Connect.WRITE_CL);
      session = Connect.open(p, p.getProperty(Connect.KEYSPACE, "ycsb"));
    }
  }

  private static ConsistencyLevel level(Properties p, String name) {
    return DefaultConsistencyLevel.valueOf(p.getProperty(name, "ONE").trim().toUpperCase());
  }

  @Override
  public void init() throws DBException {
    synchronized (LOCK) {
      if (shared == null) {
        try {
          shared = new Shared(getProperties());
        } catch (RuntimeException e) {
          throw new DBException("dohyo.ycsb: connect: " + e, e);
        }
      }
      users++;
      s = shared;
    }
  }

  @Override
  public void cleanup() throws DBException {
    synchronized (LOCK) {
      if (s != null && --users == 0) {
        shared.session.close();
        shared = null;
      }
      s = null;
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      PreparedStatement ps =
          prepare("read", table, fields, cols -> "SELECT " + cols + " FROM " + Connect.ident(table)
              + " WHERE " + KEY + " = ?");
      Row row = s.session.execute(ps.bind(key).setConsistencyLevel(s.readCl)).one();
      if (row == null) {
        return Status.NOT_FOUND;
      }
      copy(row, result);
      return Status.OK;
    } catch (RuntimeException e) {
      return fail("read", key, e);
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    try {
      // As Cassandra's own YCSB binding: rows in token order from the start key's token.
      PreparedStatement ps =
          prepare("scan", table, fields, cols -> "SELECT " + cols + " FROM " + Connect.ident(table)
              + " WHERE token(" + KEY + ") >= token(?) LIMIT ?");
      for (Row row : s.session.execute(
          ps.bind(startkey, recordcount).setConsistencyLevel(s.readCl))) {
        HashMap<String, ByteIterator> m = new HashMap<>();
        copy(row, m);
        result.add(m);
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return fail("scan", startkey, e);
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    try {
      List<String> names = sorted(values.keySet());
      PreparedStatement ps = prepare("update", table, names, cols -> {
        StringBuilder q = new StringBuilder("UPDATE ").append(Connect.ident(table)).append(" SET ");
        for (int i = 0; i < names.size(); i++) {
          q.append(i == 0 ? "" : ", ").append(Connect.ident(names.get(i))).append(" = ?");
        }
        return q.append(" WHERE ").append(KEY).append(" = ?").toString();
      });
      Object[] args = new Object[names.size() + 1];
      for (int i = 0; i < names.size(); i++) {
        args[i] = values.get(names.get(i)).toString();
      }
      args[names.size()] = key;
      s.session.execute(ps.bind(args).setConsistencyLevel(s.writeCl));
      return Status.OK;
    } catch (RuntimeException e) {
      return fail("update", key, e);
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      List<String> names = sorted(values.keySet());
      PreparedStatement ps = prepare("insert", table, names, cols -> {
        StringBuilder q = new StringBuilder("INSERT INTO ").append(Connect.ident(table))
            .append(" (").append(KEY);
        for (String n : names) {
          q.append(", ").append(Connect.ident(n));
        }
        q.append(") VALUES (?");
        for (int i = 0; i < names.size(); i++) {
          q.append(", ?");
        }
        return q.append(")").toString();
      });
      Object[] args = new Object[names.size() + 1];
      args[0] = key;
      for (int i = 0; i < names.size(); i++) {
        args[i + 1] = values.get(names.get(i)).toString();
      }
      s.session.execute(ps.bind(args).setConsistencyLevel(s.writeCl));
      return Status.OK;
    } catch (RuntimeException e) {
      return fail("insert", key, e);
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      PreparedStatement ps = prepare("delete", table, null,
          cols -> "DELETE FROM " + Connect.ident(table) + " WHERE " + KEY + " = ?");
      s.session.execute(ps.bind(key).setConsistencyLevel(s.writeCl));
      return Status.OK;
    } catch (RuntimeException e) {
      return fail("delete", key, e);
    }
  }

  /**
   * Returns the cached prepared statement for an operation on a table and field set, preparing it
   * on first use. build gets the column list ("*" for all fields).
   */
  private PreparedStatement prepare(String op, String table, Collection<String> fields,
      Function<String, String> build) {
    List<String> names = fields == null ? null : sorted(fields);
    String cols;
    if (names == null) {
      cols = "*";
    } else {
      StringBuilder b = new StringBuilder();
      for (String n : names) {
        b.append(b.length() == 0 ? "" : ", ").append(Connect.ident(n));
      }
      cols = b.toString();
    }
    String cacheKey = op + "|" + table + "|" + cols;
    return s.prepared.computeIfAbsent(cacheKey, k -> s.session.prepare(build.apply(cols)));
  }

  private static List<String> sorted(Collection<String> names) {
    return new ArrayList<>(new TreeSet<>(names));
  }

  /** Copies a row's non-key, non-null columns into a YCSB result map. */
  private static void copy(Row row, Map<String, ByteIterator> out) {
    int i = 0;
    for (ColumnDefinition cd : row.getColumnDefinitions()) {
      String name = cd.getName().asInternal();
      if (!name.equals(KEY) && !row.isNull(i)) {
        out.put(name, new StringByteIterator(row.getString(i)));
      }
      i++;
    }
  }

  /** Reports the first few failures on stderr (YCSB only counts them) and returns ERROR. */
  private Status fail(String op, String key, RuntimeException e) {
    if (s.errors.getAndIncrement() < 10) {
      System.err.println("dohyo.ycsb: " + op + " " + key + ": " + e);
    }
    return Status.ERROR;
  }
}
