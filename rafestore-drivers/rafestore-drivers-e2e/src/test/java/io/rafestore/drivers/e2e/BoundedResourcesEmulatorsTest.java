package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 9's bounded resources with the real drivers: 10,000 operations (half writes, half reads, 64
 * in flight) through one client over the four emulators. Threads, open sockets and retained heap
 * are measured after a warm-up, half-way and at the end; each may grow only by a fixed allowance,
 * not with the number of operations. (The same property on in-memory clouds with a cloud that never
 * answers is {@code BoundedResourcesTest} in rafestore-core.)
 *
 * <p>Connections are held to what the drivers' configuration allows: per cloud, never more open at
 * once than its pool (S3 and Azure {@code maxConnections}, GCS {@code maxThreads}, Redis {@code
 * maxConnections}), and, once the pools are warm, connections are reused rather than replaced: few
 * opened during the second half (beyond what a pool still filling up adds) and few in TIME_WAIT at
 * the end. Before the drivers sized and reused their pools, Azure opened thousands of connections
 * over the run, GCS hundreds and S3 over a hundred, leaving 1,000 to 1,800 sockets in TIME_WAIT.
 *
 * <p>Tagged {@code c1-only}: this module's pom runs it in a Surefire execution of its own, in a JVM
 * with C1 alone (C2 compiling the SDKs' paths cost this test more CPU than it saved).
 */
@Tag("c1-only")
class BoundedResourcesEmulatorsTest {
  private static final KeyPair KEYS = SigningKeys.generate();
  private static final int OPERATIONS = 10_000;
  private static final int IN_FLIGHT = 64;

  // The pools, set explicitly so the bounds below follow from them.
  private static final int S3_POOL = 64;
  private static final int AZURE_POOL = 64;
  private static final int GCS_POOL = 16;
  private static final int REDIS_POOL = 8;

  /**
   * Connections a cloud may open during the second half although its pool is warm: a server may
   * close an idle connection (Azurite's Node server does after 5 s idle) and the odd failed request
   * drops one. The churn this bounds was hundreds to thousands.
   */
  private static final int REOPENED_ALLOWANCE = 16;

  /**
   * Azure's extra allowance: in some runs (2 of 5 seen) the JDK HttpClient replaced all of its
   * pooled connections to Azurite at once, once, with no error logged (the client closed them;
   * cause not identified). One replacement of the pool is bounded; churn is not.
   */
  private static final int AZURE_POOL_REPLACEMENTS = 1;

  /**
   * S3's extra allowance: with a warm pool, the Netty client to MinIO replaces 12 to 16 connections
   * per half (about 4,500 operations) in the runs of 2026-11-24 (the client closes them: they are
   * in TIME_WAIT on its side). Not idle reaping: a run with a 30-minute idle timeout replaced 15.
   * Cause not identified; the churn this test exists for was over a hundred for S3, and a
   * per-request leak would be thousands.
   */
  private static final int S3_REPLACEMENTS = 16;

  /**
   * Connections over a pool's size seen open at once: a connection the pool gave up (aborted or
   * closed by the server) can still be ESTABLISHED for a moment after its replacement opened. (The
   * one excess seen before the census counted distinct connections, 72 to MinIO with a pool of 64
   * and no other growth, was probably lines that {@code /proc/net/tcp} listed twice; see {@link
   * SocketCensus}.)
   */
  private static final int CLOSING_SLACK = 8;

  /** Sockets of this process that are not pooled connections (JMX, the JDK's own, stragglers). */
  private static final int OTHER_SOCKETS = 16;

  /** Open sockets of this process (Linux: links to "socket:[...]" under /proc/self/fd). */
  private static long openSockets() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(
              p -> {
                try {
                  return Files.readSymbolicLink(p).toString().startsWith("socket:");
                } catch (IOException e) {
                  return false; // closed while listing
                }
              })
          .count();
    }
  }

  /** Live threads by name with the numbers taken out, most first (diagnostics for the log). */
  private static Map<String, Long> threadNames() {
    Map<String, Long> byName =
        Thread.getAllStackTraces().keySet().stream()
            .collect(
                java.util.stream.Collectors.groupingBy(
                    t -> t.getName().replaceAll("[0-9]+", "N"),
                    java.util.TreeMap::new,
                    java.util.stream.Collectors.counting()));
    Map<String, Long> top = new java.util.LinkedHashMap<>();
    byName.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(8)
        .forEach(e -> top.put(e.getKey(), e.getValue()));
    return top;
  }

  /**
   * The classes holding the most heap (after a full GC), as {@code jcmd GC.class_histogram} prints
   * them: printed half-way and at the end, so that heap growth names what grew.
   */
  private static String histogram(int lines) {
    try {
      Object out =
          ManagementFactory.getPlatformMBeanServer()
              .invoke(
                  new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                  "gcClassHistogram",
                  new Object[] {new String[0]},
                  new String[] {String[].class.getName()});
      return String.join("\n", ((String) out).lines().limit(lines + 3L).toList());
    } catch (javax.management.JMException | RuntimeException e) {
      return "(no class histogram: " + e + ")";
    }
  }

  private static long heapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  private static void run(RafeStore store, int from, int to, byte[][] values) throws Exception {
    Semaphore slots = new Semaphore(IN_FLIGHT);
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (int i = from; i < to; i++) {
      slots.acquire();
      String key = "res/" + (i % IN_FLIGHT);
      CompletableFuture<?> op;
      if (i % 2 == 0) {
        op = store.write(key, values[i % values.length]);
      } else {
        op =
            store
                .read(key)
                .handle(
                    (StoredValue v, Throwable e) -> {
                      // A read may run before the first write of its key: not found is fine.
                      return null;
                    });
      }
      op.whenComplete((r, e) -> slots.release());
      pending.add(op);
      if (pending.size() >= 1024) {
        CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]))
            .get(5, TimeUnit.MINUTES);
        pending.clear();
      }
    }
    CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).get(5, TimeUnit.MINUTES);
  }

  @Test
  void tenThousandOperationsKeepThreadsSocketsAndHeapBounded() throws Exception {
    byte[][] values = new byte[8][];
    for (int i = 0; i < values.length; i++) {
      values[i] = new byte[512 + 97 * i];
      values[i][0] = (byte) i;
    }
    RafeStore.Builder b = RafeStore.builder().faultsTolerated(1).writer("res", KEYS);
    b.cloud(Emulators.s3("minio", S3_POOL));
    b.cloud(Emulators.azure("azurite", AZURE_POOL));
    b.cloud(Emulators.gcs("fakegcs", GCS_POOL));
    b.cloud(Emulators.redis("redis", REDIS_POOL));
    Map<String, Integer> pools =
        Map.of("s3", S3_POOL, "azure", AZURE_POOL, "gcs", GCS_POOL, "redis", REDIS_POOL);
    try (RafeStore store = b.build();
        SocketCensus census = new SocketCensus(Emulators.endpoints())) {
      // Warm-up, then two equal halves: pools fill during the first half; what a leak would add
      // per operation shows as growth during the second.
      int warmUp = 1_000;
      int middle = (warmUp + OPERATIONS) / 2;
      run(store, 0, warmUp, values);
      census.settle();
      Map<String, SocketCensus.Figures> warm = census.mark();
      int threadsStart = ManagementFactory.getThreadMXBean().getThreadCount();
      run(store, warmUp, middle, values);
      int threadsMiddle = ManagementFactory.getThreadMXBean().getThreadCount();
      long socketsMiddle = openSockets();
      census.settle();
      Map<String, SocketCensus.Figures> firstHalf = census.mark();
      long heapMiddle = heapAfterGc();
      String histogramMiddle = histogram(15);
      run(store, middle, OPERATIONS, values);
      int threadsEnd = ManagementFactory.getThreadMXBean().getThreadCount();
      long socketsEnd = openSockets();
      census.settle();
      Map<String, SocketCensus.Figures> secondHalf = census.mark();
      long heapEnd = heapAfterGc();
      System.out.printf(
          "heap half-way:%n%s%nheap at the end:%n%s%n", histogramMiddle, histogram(15));
      System.out.printf(
          "bounded resources over %d operations: threads %d -> %d -> %d, sockets %d -> %d,"
              + " heap %d -> %d KiB%n  warm-up %s%n  first half %s%n  second half %s%n"
              + "  threads by name %s%n",
          OPERATIONS,
          threadsStart,
          threadsMiddle,
          threadsEnd,
          socketsMiddle,
          socketsEnd,
          heapMiddle / 1024,
          heapEnd / 1024,
          warm,
          firstHalf,
          secondHalf,
          threadNames());
      // Pools, not per-request resources: fixed allowances, whatever the number of operations.
      assertThat(threadsEnd).as("live threads").isLessThanOrEqualTo(threadsStart + 16);
      int pooled = pools.values().stream().mapToInt(Integer::intValue).sum();
      assertThat(socketsMiddle)
          .as("open sockets half-way")
          .isLessThanOrEqualTo(pooled + OTHER_SOCKETS);
      assertThat(socketsEnd)
          .as("open sockets at the end")
          .isLessThanOrEqualTo(pooled + OTHER_SOCKETS);
      for (Map.Entry<String, Integer> pool : pools.entrySet()) {
        String cloud = pool.getKey();
        for (Map<String, SocketCensus.Figures> half : List.of(firstHalf, secondHalf)) {
          assertThat(half.get(cloud).maxOpen())
              .as("most connections open at once to %s", cloud)
              .isLessThanOrEqualTo(pool.getValue() + CLOSING_SLACK);
        }
        // Reuse, not churn: connections opened while the pool was warm, and the TIME_WAIT
        // sockets left by the connections this process closed (or had closed) lately.
        // A pool still filling up at half-time (S3's grows with the load: 30 after the warm-up,
        // 56 of 64 half-way in one run) opens connections that replace nothing; those are bounded
        // by the pool's size above, and only the rest count as churn here.
        int replacements =
            switch (cloud) {
              case "azure" -> AZURE_POOL_REPLACEMENTS * AZURE_POOL;
              case "s3" -> S3_REPLACEMENTS;
              default -> 0;
            };
        int grew = Math.max(0, secondHalf.get(cloud).maxOpen() - firstHalf.get(cloud).openNow());
        assertThat(secondHalf.get(cloud).opened() - grew)
            .as(
                "connections opened to %s during the second half, less the pool's growth (%d)",
                cloud, grew)
            .isLessThanOrEqualTo(REOPENED_ALLOWANCE + replacements);
        // A pool may also shrink (idle connections closed when the load drops at the end): each
        // connection it closed leaves a TIME_WAIT without anything being reopened.
        SocketCensus.Figures second = secondHalf.get(cloud);
        int shrunk = Math.max(0, second.maxOpen() - second.openNow());
        assertThat(second.timeWait())
            .as("connections to %s in TIME_WAIT at the end (pool shrank by %d)", cloud, shrunk)
            .isLessThanOrEqualTo(REOPENED_ALLOWANCE + replacements + shrunk);
      }
      assertThat(heapEnd)
          .as("retained heap, second half")
          .isLessThan(heapMiddle + 32L * 1024 * 1024);
      assertThat(store.blocking().history("res/0", java.util.Optional.empty(), 10).versions())
          .isNotEmpty();
    }
  }
}
