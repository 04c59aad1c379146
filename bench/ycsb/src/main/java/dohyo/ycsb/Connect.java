package dohyo.ycsb;

import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.CqlSessionBuilder;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.config.ProgrammaticDriverConfigLoaderBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/** Opens driver sessions from YCSB-style properties (shared by CqlClient and Setup). */
final class Connect {
  static final String HOSTS = "cassandra.hosts";
  static final String KEYSPACE = "cassandra.keyspace";
  static final String LOCAL_DC = "cassandra.localdc";
  static final String USERNAME = "cassandra.username";
  static final String PASSWORD = "cassandra.password";
  static final String TIMEOUT_MS = "cassandra.requesttimeoutms";
  static final String READ_CL = "cassandra.readconsistencylevel";
  static final String WRITE_CL = "cassandra.writeconsistencylevel";

  static final int DEFAULT_PORT = 9042;

  private Connect() {}

  /**
   * Opens a session to the hosts in {@code cassandra.hosts}; with a keyspace, the session USEs
   * it. Token-aware routing is off (the token map is not built): dohyo reports itself as the only
   * node, and a benchmark against one endpoint should not depend on ring metadata. Without
   * {@code cassandra.localdc} the local datacenter is taken from the contact point's own
   * system.local row (DcInferringLoadBalancingPolicy).
   */
  static CqlSession open(Properties p, String keyspace) {
    Duration timeout = Duration.ofMillis(Long.parseLong(p.getProperty(TIMEOUT_MS, "12000")));
    ProgrammaticDriverConfigLoaderBuilder cfg =
        DriverConfigLoader.programmaticBuilder()
            .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, timeout)
            .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, timeout)
            .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, timeout)
            .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, timeout)
            .withBoolean(DefaultDriverOption.METADATA_TOKEN_MAP_ENABLED, false)
            // Netty's default 2 s quiet period on close would add to every short run.
            .withInt(DefaultDriverOption.NETTY_IO_SHUTDOWN_QUIET_PERIOD, 0)
            .withInt(DefaultDriverOption.NETTY_ADMIN_SHUTDOWN_QUIET_PERIOD, 0);
    String dc = p.getProperty(LOCAL_DC);
    if (dc == null || dc.isEmpty()) {
      cfg.withString(
          DefaultDriverOption.LOAD_BALANCING_POLICY_CLASS, "DcInferringLoadBalancingPolicy");
    }
    CqlSessionBuilder b =
        CqlSession.builder()
            .withConfigLoader(cfg.build())
            .addContactPoints(parseHosts(p.getProperty(HOSTS, "127.0.0.1:" + DEFAULT_PORT)));
    if (dc != null && !dc.isEmpty()) {
      b.withLocalDatacenter(dc);
    }
    String user = p.getProperty(USERNAME);
    if (user != null && !user.isEmpty()) {
      b.withAuthCredentials(user, p.getProperty(PASSWORD, ""));
    }
    if (keyspace != null) {
      b.withKeyspace(CqlIdentifier.fromInternal(keyspace));
    }
    return b.build();
  }

  /** Parses "host:port,host,[v6]:port" (port defaults to 9042). */
  static List<InetSocketAddress> parseHosts(String hosts) {
    List<InetSocketAddress> out = new ArrayList<>();
    for (String h : hosts.split(",")) {
      h = h.trim();
      if (h.isEmpty()) {
        continue;
      }
      String host = h;
      int port = DEFAULT_PORT;
      if (h.startsWith("[")) {
        int end = h.indexOf(']');
        if (end < 0) {
          throw new IllegalArgumentException(HOSTS + ": bad address " + h);
        }
        host = h.substring(1, end);
        if (h.length() > end + 1 && h.charAt(end + 1) == ':') {
          port = Integer.parseInt(h.substring(end + 2));
        }
      } else if (h.indexOf(':') >= 0 && h.indexOf(':') == h.lastIndexOf(':')) {
        host = h.substring(0, h.indexOf(':'));
        port = Integer.parseInt(h.substring(h.indexOf(':') + 1));
      }
      out.add(new InetSocketAddress(host, port));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(HOSTS + " is empty");
    }
    return out;
  }

  /** Quotes a name for CQL only when it needs it. */
  static String ident(String name) {
    return CqlIdentifier.fromInternal(name).asCql(true);
  }
}
