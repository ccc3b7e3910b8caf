package io.rafestore.drivers.e2e;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * This process's TCP connections to each emulator, from Linux's {@code /proc}: a background thread
 * samples every few milliseconds which of the process's sockets (inodes under {@code
 * /proc/self/fd}) are ESTABLISHED to which server port ({@code /proc/net/tcp} and {@code tcp6}),
 * and records every connection it sees (its local port), the most open at once, and the TIME_WAIT
 * entries left by connections it saw (client side: local port ours; server side: the server's entry
 * towards our port).
 *
 * <p>Sampling can miss a connection that opens and closes between two samples, so "opened" is a
 * lower bound; the TIME_WAIT count does not depend on sampling speed for connections seen at least
 * once. Only this process's sockets count, so other processes using the same emulators do not
 * disturb the figures.
 *
 * <p>Every figure counts distinct connections (local ports, or (local, remote) port pairs for
 * TIME_WAIT), never lines: the kernel writes {@code /proc/net/tcp} a chunk per read, and a socket
 * opened or closed between two chunks shifts the table, so one read can list a connection twice
 * (seen: 78 lines ESTABLISHED to Azurite with 64 distinct connections, none opened since the last
 * mark).
 */
final class SocketCensus implements AutoCloseable {
  /** One cloud's figures since the last {@link #mark()}. */
  record Figures(int openNow, int maxOpen, int opened, int timeWait) {
    @Override
    public String toString() {
      return "open "
          + openNow
          + " (max "
          + maxOpen
          + "), opened "
          + opened
          + ", TIME_WAIT "
          + timeWait;
    }
  }

  private final Map<Integer, String> ports; // server port -> cloud name
  private final Thread sampler;
  private volatile boolean stopped;

  // Guarded by this.
  private final Map<String, Set<Integer>> everSeen = new HashMap<>(); // cloud -> local ports
  private final Map<String, Set<Integer>> seenSinceMark = new HashMap<>();
  private final Map<String, Set<Integer>> openAtMark = new HashMap<>();
  private final Map<String, Set<Integer>> lastOpen = new HashMap<>();
  private final Map<String, Integer> openNow = new HashMap<>();
  private final Map<String, Integer> maxOpen = new HashMap<>();
  private final Map<String, Integer> timeWait = new HashMap<>();
  private long samples;

  /** Starts sampling the connections to the given servers (name to endpoint URL). */
  SocketCensus(Map<String, URI> servers) {
    ports = new HashMap<>();
    servers.forEach((name, uri) -> ports.put(uri.getPort(), name));
    for (String name : servers.keySet()) {
      everSeen.put(name, new HashSet<>());
      seenSinceMark.put(name, new HashSet<>());
      openAtMark.put(name, new HashSet<>());
      lastOpen.put(name, new HashSet<>());
    }
    sampler = new Thread(this::loop, "socket-census");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void loop() {
    while (!stopped) {
      try {
        sample();
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        // A socket closed while listing: the next sample sees the new state.
      }
    }
  }

  private static Set<Long> ownSocketInodes() throws IOException {
    Set<Long> inodes = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path p : (Iterable<Path>) fds::iterator) {
        try {
          String link = Files.readSymbolicLink(p).toString();
          if (link.startsWith("socket:[")) {
            inodes.add(Long.parseLong(link.substring(8, link.length() - 1)));
          }
        } catch (IOException e) {
          // closed while listing
        }
      }
    }
    return inodes;
  }

  private void sample() throws IOException {
    Set<Long> own = ownSocketInodes();
    Map<String, Set<Integer>> seenNow = new HashMap<>();
    Set<List<Integer>> timeWaits = new HashSet<>(); // (local port, remote port), each once
    int[] f = new int[2 * TABLE_FIELDS];
    for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      // Bytes, not lines: the table is ASCII, and only ESTABLISHED and TIME_WAIT lines are
      // looked into further (see fields).
      byte[] table = Files.readAllBytes(Path.of(file));
      int start = nextLine(table, 0); // the header
      while (start < table.length) {
        int end = nextLine(table, start);
        if (fields(table, start, end, f)) {
          boolean established = is(table, f, 3, "01");
          boolean timeWait = !established && is(table, f, 3, "06");
          if (established || timeWait) {
            int localPort = port(table, f, 1);
            int remotePort = port(table, f, 2);
            if (established) {
              if (ports.containsKey(remotePort) && own.contains(decimal(table, f, 9))) {
                seenNow.computeIfAbsent(ports.get(remotePort), c -> new HashSet<>()).add(localPort);
              }
            } else {
              timeWaits.add(List.of(localPort, remotePort));
            }
          }
        } // else a line cut short between two reads
        start = end;
      }
    }
    synchronized (this) {
      samples++;
      for (String cloud : everSeen.keySet()) {
        Set<Integer> s = seenNow.getOrDefault(cloud, Set.of());
        int n = s.size();
        openNow.put(cloud, n);
        maxOpen.merge(cloud, n, Math::max);
        everSeen.get(cloud).addAll(s);
        seenSinceMark.get(cloud).addAll(s);
        lastOpen.put(cloud, new HashSet<>(s));
      }
      Map<String, Integer> tw = new HashMap<>();
      for (List<Integer> e : timeWaits) {
        int local = e.get(0);
        int remote = e.get(1);
        String cloud = ports.get(remote);
        if (cloud != null && everSeen.get(cloud).contains(local)) {
          tw.merge(cloud, 1, Integer::sum); // we closed first
        }
        cloud = ports.get(local);
        if (cloud != null && everSeen.get(cloud).contains(remote)) {
          tw.merge(cloud, 1, Integer::sum); // the server closed first
        }
      }
      timeWait.clear();
      timeWait.putAll(tw);
    }
  }

  /** The fields of a TCP table line the census reads: up to the inode (the tenth). */
  static final int TABLE_FIELDS = 10;

  /** The index just past the line starting at {@code from} (past its newline, if any). */
  static int nextLine(byte[] table, int from) {
    int i = from;
    while (i < table.length && table[i] != '\n') {
      i++;
    }
    return Math.min(i + 1, table.length);
  }

  /**
   * Finds the first {@link #TABLE_FIELDS} whitespace-separated fields of the line {@code
   * table[from..to)}: field {@code n} is {@code table[bounds[2n]..bounds[2n+1])}. False if the line
   * has fewer. By hand on bytes: the sampler reads the whole TCP table every 20 ms, in the JVM that
   * {@code BoundedResourcesEmulatorsTest} measures. Splitting lines with {@code split("\\s+")} was
   * about 7 % of that client's CPU (JFR); decoding every line into a string and splitting it by
   * hand still 7 % of its Java samples (JFR, 2026-11-29), mostly reading the lines and cutting
   * fields no one looked at.
   */
  static boolean fields(byte[] table, int from, int to, int[] bounds) {
    int i = from;
    for (int n = 0; n < TABLE_FIELDS; n++) {
      while (i < to && isSpace(table[i])) {
        i++;
      }
      if (i == to) {
        return false;
      }
      bounds[2 * n] = i;
      while (i < to && !isSpace(table[i])) {
        i++;
      }
      bounds[2 * n + 1] = i;
    }
    return true;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
  }

  /** Whether field {@code n} is {@code text} (ASCII). */
  static boolean is(byte[] table, int[] bounds, int n, String text) {
    int from = bounds[2 * n];
    if (bounds[2 * n + 1] - from != text.length()) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      if (table[from + i] != text.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** The port of address field {@code n} ("0100007F:2328": hex after the colon). */
  static int port(byte[] table, int[] bounds, int n) {
    int i = bounds[2 * n + 1];
    int port = 0;
    int shift = 0;
    while (--i >= bounds[2 * n] && table[i] != ':') {
      port |= digit(table, bounds, n, i, 16) << shift;
      shift += 4;
    }
    return port;
  }

  /** Field {@code n} as a decimal number (the inode). */
  static long decimal(byte[] table, int[] bounds, int n) {
    long value = 0;
    for (int i = bounds[2 * n]; i < bounds[2 * n + 1]; i++) {
      value = value * 10 + digit(table, bounds, n, i, 10);
    }
    return value;
  }

  /**
   * The digit at {@code table[i]} in {@code radix}; a byte that is none fails, naming the field (as
   * {@code Integer.parseInt} did when the census read strings), rather than skewing the count.
   */
  private static int digit(byte[] table, int[] bounds, int n, int i, int radix) {
    int d = Character.digit(table[i], radix);
    if (d < 0) {
      String field =
          new String(
              table,
              bounds[2 * n],
              bounds[2 * n + 1] - bounds[2 * n],
              java.nio.charset.StandardCharsets.US_ASCII);
      throw new IllegalStateException(
          "TCP table field " + n + " '" + field + "' is not a base-" + radix + " number");
    }
    return d;
  }

  /** Waits for a fresh sample, so figures reflect the present. */
  void settle() throws InterruptedException {
    long target;
    synchronized (this) {
      target = samples + 2;
    }
    while (true) {
      synchronized (this) {
        if (samples >= target) {
          return;
        }
      }
      Thread.sleep(5);
    }
  }

  /** Per cloud, the figures since the last mark; then starts a new period. */
  synchronized Map<String, Figures> mark() {
    Map<String, Figures> out = new LinkedHashMap<>();
    for (String cloud : everSeen.keySet().stream().sorted().toList()) {
      int now = openNow.getOrDefault(cloud, 0);
      Set<Integer> opened = new HashSet<>(seenSinceMark.get(cloud));
      opened.removeAll(openAtMark.get(cloud));
      out.put(
          cloud,
          new Figures(
              now, maxOpen.getOrDefault(cloud, 0), opened.size(), timeWait.getOrDefault(cloud, 0)));
      // The next period counts as opened only connections not open at this mark.
      seenSinceMark.get(cloud).clear();
      openAtMark.put(cloud, new HashSet<>(lastOpen.get(cloud)));
      maxOpen.put(cloud, now);
    }
    return out;
  }

  @Override
  public void close() {
    stopped = true;
    sampler.interrupt();
  }
}
