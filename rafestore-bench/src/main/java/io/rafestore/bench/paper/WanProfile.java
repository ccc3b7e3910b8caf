package io.rafestore.bench.paper;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A wide-area network profile read from a properties file: the client's links, each cloud's
 * round-trip time and bandwidth, the paper's Table 2 arrangements and the time scale of quick runs.
 * Values are at time scale 1; {@link #scaledRtt} and {@link #scaledBps} apply a scale. Immutable.
 *
 * @param name the profile's name
 * @param uplinkBps the client's upload bandwidth, bits/s
 * @param downlinkBps the client's download bandwidth, bits/s
 * @param jitter RTT jitter fraction in [0, 1]
 * @param clouds cloud id to its link, in file order of ids p0, p1, ...
 * @param arrangements configuration number to arrangement
 * @param quickTimeScale the time scale of {@code --quick}
 */
record WanProfile(
    String name,
    long uplinkBps,
    long downlinkBps,
    double jitter,
    Map<String, CloudLink> clouds,
    Map<Integer, Arrangement> arrangements,
    double quickTimeScale) {

  /** The built-in profile: the paper's Table 1 RTTs with our documented bandwidths. */
  static final String DEFAULT = "profiles/paper-table1.properties";

  WanProfile {
    clouds = Map.copyOf(clouds);
    arrangements = Map.copyOf(arrangements);
  }

  /** One cloud's path from the client, at time scale 1. */
  record CloudLink(String id, double rttMillis, long bps) {}

  /**
   * One of Table 2's arrangements.
   *
   * @param number the configuration number
   * @param data the data clouds, in order
   * @param extra the extra data clouds writeDf may use, in order
   * @param metadataOnly clouds that hold metadata only
   */
  record Arrangement(int number, List<String> data, List<String> extra, List<String> metadataOnly) {
    Arrangement {
      data = List.copyOf(data);
      extra = List.copyOf(extra);
      metadataOnly = List.copyOf(metadataOnly);
    }

    /** Every cloud in the order it is added to the store: data, extra, metadata only. */
    List<String> order() {
      List<String> all = new ArrayList<>(data);
      all.addAll(extra);
      all.addAll(metadataOnly);
      return all;
    }
  }

  /** Loads a profile from a file path or classpath resource; errors name the key at fault. */
  static WanProfile load(String location) throws IOException {
    Settings s = Settings.load(location);
    Set<String> ids = new TreeSet<>();
    Set<Integer> configs = new TreeSet<>();
    for (String key : keys(s)) {
      String[] parts = key.split("\\.");
      if (key.startsWith("cloud.") && parts.length >= 3) {
        ids.add(parts[1]);
      } else if (key.startsWith("config.") && parts.length == 3) {
        try {
          configs.add(Integer.parseInt(parts[1]));
        } catch (NumberFormatException e) {
          throw s.error(key, "must name a configuration number, as in config.1.data");
        }
      }
    }
    if (ids.isEmpty()) {
      throw s.error("cloud.<id>.rtt.ms", "is missing: a profile needs at least one cloud");
    }
    Map<String, CloudLink> clouds = new LinkedHashMap<>();
    for (String id : ids) {
      double rtt = s.number("cloud." + id + ".rtt.ms", 0, 600_000);
      long bps = s.positiveLong("cloud." + id + ".bps");
      clouds.put(id, new CloudLink(id, rtt, bps));
    }
    Map<Integer, Arrangement> arrangements = new LinkedHashMap<>();
    for (int c : configs) {
      List<String> data = cloudList(s, "config." + c + ".data", clouds, true);
      List<String> extra = cloudList(s, "config." + c + ".extra", clouds, false);
      List<String> meta = cloudList(s, "config." + c + ".metadataOnly", clouds, false);
      Set<String> seen = new TreeSet<>();
      for (String id : new Arrangement(c, data, extra, meta).order()) {
        if (!seen.add(id)) {
          throw s.error("config." + c, "names cloud " + id + " twice");
        }
      }
      arrangements.put(c, new Arrangement(c, data, extra, meta));
    }
    return new WanProfile(
        s.has("name") ? s.string("name") : location,
        s.positiveLong("uplink.bps"),
        s.positiveLong("downlink.bps"),
        s.has("jitter") ? s.number("jitter", 0, 1) : 0,
        clouds,
        arrangements,
        s.has("timeScale.quick") ? s.number("timeScale.quick", 1e-6, 1) : 0.02);
  }

  private static Set<String> keys(Settings s) {
    return s.keys();
  }

  private static List<String> cloudList(
      Settings s, String key, Map<String, CloudLink> clouds, boolean required) {
    if (!required && !s.has(key)) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String id : s.string(key).split(",")) {
      String t = id.trim();
      if (!clouds.containsKey(t)) {
        throw s.error(key, "names unknown cloud '" + t + "' (known: " + clouds.keySet() + ")");
      }
      out.add(t);
    }
    return out;
  }

  /** The arrangement of configuration {@code number}. */
  Arrangement arrangement(int number) {
    Arrangement a = arrangements.get(number);
    if (a == null) {
      throw new IllegalArgumentException(
          "profile "
              + name
              + " has no configuration "
              + number
              + " (has "
              + arrangements.keySet()
              + ")");
    }
    return a;
  }

  /** A cloud's RTT at {@code timeScale}. */
  Duration scaledRtt(String id, double timeScale) {
    return Duration.ofNanos(Math.round(clouds.get(id).rttMillis() * 1e6 * timeScale));
  }

  /** A bandwidth (bits/s) at {@code timeScale}: a run {@code k} times faster moves k times more. */
  static long scaledBps(long bps, double timeScale) {
    return Math.max(1, Math.round(bps / timeScale));
  }
}
