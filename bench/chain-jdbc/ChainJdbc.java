import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The chain study's model unit sent the way the study's JDBC program sent it (chain-model.md, "How
 * the study's program sends the transaction"), written for this project from that description: one
 * connection per terminal with autocommit off, both joins as plain Statements with the client id
 * written into the text, the update and the insert as PreparedStatements made once per terminal,
 * op_time bound from the client's clock, one commit per unit. Terminals start 10 ms apart, and the
 * printed Total time runs from before the first connects to the end of the last one.
 *
 * Clients are drawn as headroom's distributed mode draws them (chain-model.md, "Runs"), so the two
 * programs visit clients the same way. bench/chain-vs-jdbc.mjs builds and runs it.
 *
 *   java -cp .:postgresql.jar ChainJdbc JDBC_URL TERMINALS UNITS_PER_TERMINAL CLIENT_COUNT
 */
public final class ChainJdbc {
  static final long PRIME = 982_451_653L;
  static final long START_R = 393_044_385L;

  static final String CHAIN = "left join address a on c.address_id=a.id left join street s on s.id=a.street_id"
      + " left join city ci on ci.id=s.city_id left join country co on co.id=ci.country_id";
  static final String READ_CLIENT = "select * from client c " + CHAIN + " where c.id=";
  static final String READ_OPERATIONS = "select o.id, o.*, c.*, a.*, s.*, ci.*, co.* from operation o"
      + " left join client c on o.client_id=c.id " + CHAIN + " where c.id=";
  static final String UPDATE = "update operation set summa=? where id=?";
  static final String INSERT = "insert into operation (summa, client_id, op_time) values (?,?,?)";

  /** The study's reference generator: r -> r * 11 mod p; nextRef(n) draws 1..n-1. */
  static final class Refs {
    long r;

    Refs(long at) {
      r = at;
    }

    int nextRef(int parentCount) {
      long ref;
      do {
        ref = r % parentCount;
        r = r * 11 % PRIME;
      } while (ref <= 0);
      return (int) ref;
    }
  }

  /** r of a fresh generator (one step past startR) after k calls of nextRef(111). */
  static long shift(long k) {
    Refs refs = new Refs(START_R * 11 % PRIME);
    for (long i = 0; i < k; i++) refs.nextRef(111);
    return refs.r;
  }

  static final class Terminal extends Thread {
    final String url;
    final long start;
    final int units;
    final int clientCount;
    final Random random;
    int finished;
    int failed;
    long elapsedMs;
    double maxWaitMs;
    double totalWaitMs;
    Exception error;

    Terminal(String url, long start, int units, int clientCount, long seed) {
      this.url = url;
      this.start = start;
      this.units = units;
      this.clientCount = clientCount;
      this.random = new Random(seed);
    }

    @Override
    public void run() {
      long began = System.nanoTime();
      try (Connection conn = DriverManager.getConnection(url)) {
        conn.setAutoCommit(false);
        Refs refs = new Refs(start);
        try (Statement plain = conn.createStatement();
            PreparedStatement update = conn.prepareStatement(UPDATE);
            PreparedStatement insert = conn.prepareStatement(INSERT)) {
          for (int i = 0; i < units; i++) {
            long unitStart = System.nanoTime();
            try {
              unit(conn, plain, update, insert, refs.nextRef(clientCount));
              finished++;
            } catch (SQLException e) {
              failed++;
              conn.rollback();
            }
            double waitMs = (System.nanoTime() - unitStart) / 1e6;
            totalWaitMs += waitMs;
            if (waitMs > maxWaitMs) maxWaitMs = waitMs;
          }
        }
      } catch (Exception e) {
        error = e;
      }
      elapsedMs = (System.nanoTime() - began) / 1_000_000;
    }

    void unit(Connection conn, Statement plain, PreparedStatement update, PreparedStatement insert, int clientId) throws SQLException {
      // Step 2: the first row is read, the rest ignored.
      try (ResultSet rs = plain.executeQuery(READ_CLIENT + clientId)) {
        rs.next();
      }
      // Steps 3-4: rows are read one by one until index pos; the row reached is updated.
      int pos = random.nextInt(100);
      long operationId = -1;
      try (ResultSet rs = plain.executeQuery(READ_OPERATIONS + clientId + " order by o.id desc limit 100")) {
        for (int index = 0; index <= pos && rs.next(); index++) operationId = rs.getLong(1);
      }
      if (operationId >= 0) {
        update.setInt(1, pos + 20);
        update.setLong(2, operationId);
        update.executeUpdate();
      }
      // Step 5: op_time is the client's clock, bound.
      insert.setInt(1, 1 + random.nextInt(1000));
      insert.setInt(2, clientId);
      insert.setTimestamp(3, new Timestamp(System.currentTimeMillis()));
      insert.executeUpdate();
      conn.commit();
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: java ChainJdbc JDBC_URL TERMINALS UNITS_PER_TERMINAL CLIENT_COUNT");
      System.exit(2);
    }
    String url = args[0];
    int terminals = Integer.parseInt(args[1]);
    int units = Integer.parseInt(args[2]);
    int clientCount = Integer.parseInt(args[3]);

    // Distributed starts: s_0 = startR on an empty operation table, else shift(existing operations);
    // s_{i+1} = s_i * shift(units) mod p.
    long existing;
    try (Connection conn = DriverManager.getConnection(url); Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("select count(*) from operation")) {
      rs.next();
      existing = rs.getLong(1);
    }
    long s = existing == 0 ? START_R : shift(existing);
    long factor = shift(units);

    List<Terminal> started = new ArrayList<>();
    long began = System.nanoTime();
    for (int i = 0; i < terminals; i++) {
      Terminal terminal = new Terminal(url, s, units, clientCount, i + 1);
      terminal.start();
      started.add(terminal);
      s = s * factor % PRIME;
      if (i + 1 < terminals) Thread.sleep(10);
    }
    int done = 0;
    int failed = 0;
    for (Terminal terminal : started) {
      terminal.join();
      if (terminal.error != null) {
        System.err.println("terminal failed: " + terminal.error);
        System.exit(1);
      }
      done += terminal.finished;
      failed += terminal.failed;
      System.out.printf("finished %d, time %d ms, maxWait %.1f ms, avgWait %.3f ms%n", terminal.finished, terminal.elapsedMs, terminal.maxWaitMs,
          terminal.totalWaitMs / Math.max(1, terminal.finished + terminal.failed));
    }
    long totalMs = (System.nanoTime() - began) / 1_000_000;
    System.out.printf("Total time: %d ms = %.3f ms/tr = %.1f tr/sec%n", totalMs, (double) totalMs / Math.max(1, done), done * 1000.0 / totalMs);
    System.out.printf("units %d failed %d%n", done, failed);
  }
}
