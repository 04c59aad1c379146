package dohyo.ycsb;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import java.time.Duration;
import java.util.Properties;

/**
 * Creates the YCSB keyspace and table if missing, and with -truncate empties the table.
 *
 * <p>Usage: {@code Setup [-p name=value]... [-truncate]} with the same properties as {@link
 * CqlClient} plus YCSB's {@code table} (default usertable) and {@code fieldcount} (default 10).
 */
public final class Setup {
  private Setup() {}

  public static void main(String[] args) {
    Properties p = new Properties();
    boolean truncate = false;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("-truncate")) {
        truncate = true;
      } else if (args[i].equals("-p") && i + 1 < args.length && args[i + 1].contains("=")) {
        String kv = args[++i];
        p.setProperty(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      } else {
        System.err.println("usage: Setup [-p name=value]... [-truncate]");
        System.exit(2);
      }
    }
    String ks = Connect.ident(p.getProperty(Connect.KEYSPACE, "ycsb"));
    String table = ks + "." + Connect.ident(p.getProperty("table", "usertable"));
    int fields = Integer.parseInt(p.getProperty("fieldcount", "10"));
    StringBuilder create = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(table)
        .append(" (").append(CqlClient.KEY).append(" varchar PRIMARY KEY");
    for (int i = 0; i < fields; i++) {
      create.append(", ").append(Connect.ident("field" + i)).append(" varchar");
    }
    create.append(")");

    try (CqlSession session = Connect.open(p, null)) {
      run(session, "CREATE KEYSPACE IF NOT EXISTS " + ks
          + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      run(session, create.toString());
      if (truncate) {
        run(session, "TRUNCATE " + table);
      }
    } catch (RuntimeException e) {
      System.err.println("dohyo.ycsb setup: " + e);
      System.exit(1);
    }
    System.out.println("dohyo.ycsb setup: " + table + " ready" + (truncate ? " (truncated)" : ""));
    // The driver's threads are gone after close, but be explicit about the exit status.
    System.exit(0);
  }

  private static void run(CqlSession session, String cql) {
    // DDL and TRUNCATE can take longer than a request (flushes, schema agreement).
    session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
  }
}
