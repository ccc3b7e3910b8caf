package io.rafestore.examples.demo;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.HistoryPage;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.Scheduler;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.WanEmulator;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console demo that {@code scripts/demo.sh --console} runs: RafeStore on an embedded default,
 * with no servers and no accounts. Four in-memory clouds sit behind an emulated WAN with the
 * paper's Table 1 round-trip times scaled down tenfold (p0 local 0.5 ms, p1 31.5 ms, p2 75 ms, p3
 * 120 ms) in the paper's Configuration 1 (data on p0 and p1, p2 the extra, p3 metadata only). It
 * posts to a forum topic with the paper's protocol, its faster mode and the DepSky-A baseline,
 * shows what each write did, then turns one cloud Byzantine and reads on.
 *
 * <p>Not thread-safe and not part of any API: an example application.
 */
public final class Demo {
  /** Table 1 RTTs in milliseconds, scaled down tenfold. */
  static final double[] RTT_MS = {0.5, 31.5, 75, 120};

  private Demo() {}

  /**
   * Runs the demo.
   *
   * @param args ignored
   */
  public static void main(String[] args) throws Exception {
    run(System.out);
  }

  /** Runs the demo, printing to {@code out}; returns the number of posts read back correctly. */
  static int run(PrintStream out) throws Exception {
    out.println("RafeStore demo: 4 in-memory clouds behind an emulated WAN (paper Table 1 / 10)");
    out.println(
        "Configuration 1: data on p0, p1; p2 is writeDf's extra; p3 holds metadata only; f=1");
    out.println();
    int ok = 0;
    for (ProtocolMode mode : ProtocolMode.values()) {
      ok += runMode(out, mode);
    }
    return ok;
  }

  private static int runMode(PrintStream out, ProtocolMode mode) throws Exception {
    Scheduler scheduler = Scheduler.system();
    WanEmulator wan =
        WanEmulator.builder(scheduler)
            .uplinkBitsPerSecond(100_000_000L)
            .downlinkBitsPerSecond(100_000_000L)
            .seed(1)
            .build();
    List<ByzantineCloud> byzantine = new ArrayList<>();
    KeyPair keys = SigningKeys.generate();
    RafeStore.Builder builder =
        RafeStore.builder()
            .faultsTolerated(1)
            .writer("demo", keys)
            .mode(mode)
            .scheduler(scheduler)
            .dataCloudsInOrderAdded(true);
    for (int i = 0; i < 4; i++) {
      ByzantineCloud cloud = new ByzantineCloud(new MemoryCloud("p" + i), i);
      byzantine.add(cloud);
      Duration rtt = Duration.ofNanos((long) (RTT_MS[i] * 1_000_000));
      builder.cloud(
          wan.wrap(cloud, WanEmulator.Link.rtt(rtt).jitter(0.05)),
          i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA,
          rtt);
    }
    int ok = 0;
    try (RafeStore store = builder.build()) {
      var blocking = store.blocking();
      out.println("== mode " + mode);
      out.println("   " + store.conditionOne());
      String topic = "forum/welcome";
      for (int i = 1; i <= 3; i++) {
        String post = "post " + i + " written with " + mode;
        WriteReceipt r = blocking.write(topic, post.getBytes(StandardCharsets.UTF_8));
        out.printf(
            "   write %-8s %5.1f ms  data sent to %s%s, held by %s, metadata acks %s%n",
            r.version(),
            r.latency().toNanos() / 1e6,
            r.dataCloudsContacted(),
            r.writeDfUsed() ? " (writeDf)" : "",
            r.info().dataClouds(),
            r.metadataAcks());
      }
      HistoryPage page = blocking.history(topic, Optional.empty(), 10);
      out.println("   history (newest first):");
      for (VersionInfo v : page.versions()) {
        StoredValue value = blocking.read(topic, v.version());
        out.printf("     %-8s %s  [from %s]%n", v.version(), value.utf8(), value.servedBy());
        ok++;
      }
      // p0 now lies about everything it returns; reads still verify and come from elsewhere.
      byzantine.get(0).behave(ByzantineCloud.Behaviour.CORRUPT);
      StoredValue latest = blocking.read(topic);
      out.printf(
          "   p0 turned Byzantine (corrupts every object): latest read = '%s' from %s%n",
          latest.utf8(), latest.servedBy());
      out.println("   requests per cloud: " + summary(store.stats()));
      out.println();
    }
    return ok;
  }

  private static String summary(Map<String, CloudStats> stats) {
    StringBuilder sb = new StringBuilder();
    for (CloudStats s : stats.values()) {
      sb.append(
          String.format(
              "%s %dput/%dget/%dcancelled  ", s.cloudId(), s.puts(), s.gets(), s.cancelled()));
    }
    return sb.toString().trim();
  }
}
