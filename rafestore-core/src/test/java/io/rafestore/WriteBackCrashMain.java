package io.rafestore;

import io.rafestore.clouds.DirectoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The child JVM of {@link WriteBackCrashTest}: write-back writes on four directory clouds, one line
 * {@code ACK key sha256 END} per acknowledgement, until it is killed (or halts itself: at a named
 * point of write-back, {@code -Dio.rafestore.writeback.crashAt=point:n}, or after the n-th data or
 * metadata put landed, {@code -Dcrash.dataPut=n}, {@code -Dcrash.metadataPut=n}). With {@code
 * verify} it replays the journal, flushes, and prints every version of every key: {@code VERSION
 * key version sha256 END}.
 *
 * <p>Arguments: root directory, {@code work} or {@code verify}, run number.
 */
public final class WriteBackCrashMain {
  static final int KEYS = 3;

  /** Writes of a backlog run ({@code -Dcrash.backlog=true}). */
  static final int BACKLOG_WRITES = 600;

  private WriteBackCrashMain() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    String mode = args[1];
    int run = Integer.parseInt(args[2]);
    List<String> keyLines = Files.readAllLines(root.resolve("keys"));
    KeyPair keys =
        new KeyPair(
            SigningKeys.decodePublic(keyLines.get(0)), SigningKeys.decodePrivate(keyLines.get(1)));
    AtomicInteger dataPuts = new AtomicInteger(Integer.getInteger("crash.dataPut", 0));
    AtomicInteger metadataPuts = new AtomicInteger(Integer.getInteger("crash.metadataPut", 0));
    // What the crashed predecessor left (the test reports it, to show that each replay path ran).
    try (io.rafestore.internal.journal.Journal j =
        io.rafestore.internal.journal.Journal.open(root.resolve("journal"), 1L << 40, 1 << 30)) {
      long commits = 0;
      // Commit records of a round that carried several intents hold the same signed log (each
      // distinct log decoded once); a record whose entry names its value in a pack is a bulk
      // round's.
      java.util.Map<String, Integer> byLog = new java.util.HashMap<>();
      java.util.Map<String, java.util.Set<String>> packedIn = new java.util.HashMap<>();
      long bulk = 0;
      for (io.rafestore.internal.journal.Journal.Recovered r : j.recovered()) {
        if (r.commit() == null) {
          continue;
        }
        commits++;
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(r.commit());
        byte[] name = new byte[Short.toUnsignedInt(b.getShort())];
        b.get(name);
        byte[] log = new byte[b.remaining()];
        b.get(log);
        String hex = HexFormat.of().formatHex(log);
        byLog.merge(hex, 1, Integer::sum);
        java.util.Set<String> packed = packedIn.get(hex);
        if (packed == null) {
          packed = new java.util.HashSet<>();
          for (io.rafestore.internal.protocol.metadata.LogEntry e :
              new io.rafestore.internal.protocol.metadata.MetadataCodec()
                  .decode(log, r.key(), "w", keys.getPublic(), Integer.MAX_VALUE)
                  .entries()) {
            if (e.coding() == io.rafestore.internal.protocol.metadata.LogEntry.Coding.PACKED) {
              packed.add(e.dataObject());
            }
          }
          packedIn.put(hex, packed);
        }
        bulk += packed.contains(new String(name, StandardCharsets.US_ASCII)) ? 1 : 0;
      }
      long grouped = byLog.values().stream().filter(n -> n > 1).mapToLong(n -> n).sum();
      System.out.println(
          "RECOVERED "
              + j.recovered().size()
              + " "
              + commits
              + " "
              + grouped
              + " "
              + bulk
              + " END");
    }
    // A backlog: small values only, a small inline budget, metadata puts held 200 ms, so that
    // acknowledged writes pile up behind each round and the next one is a bulk round.
    boolean backlog = Boolean.getBoolean("crash.backlog");
    RafeStore.Builder b =
        RafeStore.builder()
            .writer("w", keys)
            .operationTimeout(Duration.ofSeconds(30))
            .writeBack(WriteBack.journal(root.resolve("journal")));
    if (backlog) {
      b.inlineThreshold(4 * 1024).inlineLogBudget(16 * 1024);
    }
    for (int i = 0; i < 4; i++) {
      CloudDriver c = DirectoryCloud.open("c" + i, root.resolve("clouds").resolve("c" + i));
      b.cloud(
          backlog ? held(halting(c, dataPuts, metadataPuts)) : halting(c, dataPuts, metadataPuts));
    }
    try (RafeStore s = b.build()) {
      if (mode.equals("verify")) {
        s.blocking().flush();
        for (int k = 0; k < KEYS; k++) {
          String key = "k" + k;
          HistoryPage h;
          try {
            h = s.blocking().history(key, Optional.empty(), 10_000);
          } catch (KeyNotFoundException e) {
            continue;
          }
          for (VersionInfo v : h.versions()) {
            byte[] value = s.blocking().read(key, v.version()).value();
            System.out.println("VERSION " + key + " " + v.version() + " " + sha(value) + " END");
          }
        }
        System.out.flush();
        return;
      }
      System.out.println("READY");
      System.out.flush();
      Random random = new Random(run * 7919L);
      // Two writers, so that writes of several keys are in flight together.
      CompletableFuture<?>[] writers = new CompletableFuture<?>[2];
      AtomicInteger next = new AtomicInteger();
      for (int w = 0; w < writers.length; w++) {
        writers[w] =
            CompletableFuture.runAsync(
                () -> {
                  while (true) {
                    int i = next.getAndIncrement();
                    if (backlog && i >= BACKLOG_WRITES) {
                      // Enough for bulk rounds: the rounds go on until the child halts or is
                      // killed, and the next runs are not left a journal too long to drain.
                      return;
                    }
                    String key = "k" + (i % KEYS);
                    byte[] value = value(run, i, random, backlog);
                    try {
                      s.blocking().writeBack(key, value);
                    } catch (Exception e) {
                      System.out.println("ERROR " + e);
                      return;
                    }
                    synchronized (System.out) {
                      System.out.println("ACK " + key + " " + sha(value) + " END");
                      System.out.flush();
                    }
                  }
                });
      }
      CompletableFuture.allOf(writers).join();
      if (backlog) {
        // Until halted at the crash point (or killed): the rounds run in the background.
        Thread.sleep(Long.MAX_VALUE);
      }
    }
  }

  /** Unique bytes: the run and index, then padding (inline or whole, by size). */
  static byte[] value(int run, int i, Random random, boolean small) {
    int size;
    synchronized (random) {
      int r = small ? 0 : random.nextInt(10);
      size = r < 6 ? 20 + random.nextInt(2000) : r < 9 ? 70_000 + random.nextInt(50_000) : 300_000;
    }
    byte[] v = new byte[size];
    byte[] tag = ("run " + run + " write " + i + " ").getBytes(StandardCharsets.UTF_8);
    System.arraycopy(tag, 0, v, 0, Math.min(tag.length, v.length));
    for (int j = tag.length; j < v.length; j++) {
      v[j] = (byte) (j * 31 + i);
    }
    return v;
  }

  static String sha(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code c}, halting the JVM (as kill -9) once the n-th data or metadata put has landed. */
  /** {@code c} with each metadata put held 200 ms before it is sent. */
  static CloudDriver held(CloudDriver c) {
    return new ForwardingCloud(c) {
      @Override
      public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
        if (!key.value().startsWith("m/")) {
          return super.put(key, data);
        }
        return CompletableFuture.runAsync(
                () -> {},
                CompletableFuture.delayedExecutor(200, java.util.concurrent.TimeUnit.MILLISECONDS))
            .thenCompose(x -> super.put(key, data));
      }
    };
  }

  static CloudDriver halting(CloudDriver c, AtomicInteger dataPuts, AtomicInteger metadataPuts) {
    return new ForwardingCloud(c) {
      @Override
      public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
        AtomicInteger left = key.value().startsWith("m/") ? metadataPuts : dataPuts;
        return super.put(key, data)
            .thenRun(
                () -> {
                  if (left.get() > 0 && left.decrementAndGet() == 0) {
                    Runtime.getRuntime().halt(137);
                  }
                });
      }
    };
  }
}
