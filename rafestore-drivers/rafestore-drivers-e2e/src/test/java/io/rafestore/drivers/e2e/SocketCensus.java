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
    for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines = Files.readAllLines(Path.of(file));
      for (String line : lines.subList(1, lines.size())) {
        String[] f = fields(line, 10);
        if (f == null) {
          continue; // a line cut short between two reads
        }
        int localPort = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16);
        int remotePort = Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16);
        String state = f[3];
        if ("01".equals(state)
            && ports.containsKey(remotePort)
            && own.contains(Long.parseLong(f[9]))) {
          seenNow.computeIfAbsent(ports.get(remotePort), c -> new HashSet<>()).add(localPort);
        } else if ("06".equals(state)) {
          timeWaits.add(List.of(localPort, remotePort));
        }
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

  /**
   * The first {@code count} whitespace-separated fields of {@code line}, or null if it has fewer.
   * By hand rather than {@code split("\\s+")}: the sampler reads the whole TCP table every 20 ms,
   * and the regular expression was most of its CPU (about 7 % of the client process in {@code
   * BoundedResourcesEmulatorsTest}, found with JFR).
   */
  static String[] fields(String line, int count) {
    String[] out = new String[count];
    int n = 0;
    int i = 0;
    int len = line.length();
    while (n < count) {
      while (i < len && Character.isWhitespace(line.charAt(i))) {
        i++;
      }
      if (i == len) {
        return null;
      }
      int start = i;
      while (i < len && !Character.isWhitespace(line.charAt(i))) {
        i++;
      }
      out[n++] = line.substring(start, i);
    }
    return out;
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
