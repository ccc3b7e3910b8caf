package io.rafestore.drivers.s3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** This process's ESTABLISHED TCP connections to a server port, from Linux's {@code /proc}. */
final class OwnConnections {
  private OwnConnections() {}

  /** The local ports of this process's established connections to {@code serverPort}. */
  static Set<Integer> localPorts(int serverPort) throws IOException {
    Set<Long> own = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path p : (Iterable<Path>) fds::iterator) {
        try {
          String link = Files.readSymbolicLink(p).toString();
          if (link.startsWith("socket:[")) {
            own.add(Long.parseLong(link.substring(8, link.length() - 1)));
          }
        } catch (IOException e) {
          // closed while listing
        }
      }
    }
    Set<Integer> ports = new HashSet<>();
    for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines = Files.readAllLines(Path.of(file));
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.trim().split("\\s+");
        int local = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16);
        int remote = Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16);
        if ("01".equals(f[3]) && remote == serverPort && own.contains(Long.parseLong(f[9]))) {
          ports.add(local);
        }
      }
    }
    return ports;
  }
}
