package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.HistoryPage;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.metadata.LogMerge;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A writer that crashes and is restarted under the same writer id never forks its own history
 * (issue 14): the restarted writer's completed write is read back under its own version with its
 * own bytes by every reader, whichever n - f clouds the reader hears, and a crashed write appears
 * at most under its own, different version.
 *
 * <p>The scenario of the report, generalised. Writer {@code alice} writes versions 1 and 2. A new
 * client of alice starts write X and dies at a phase boundary; for the crash inside writeM, X's log
 * (sequence s + 1) reaches only a few clouds (the victim, and for f = 2 the next f clouds too:
 * fewer than n - f). Then the victim turns slow, withholding (never answers) or replaying (returns
 * the log before X); alice restarts as a third client and writes Y, which completes without hearing
 * the victim; Y's log is held back from the victim (it reaches it late), so the victim still holds
 * X's log. Now the victim is correct again and readers that hear every possible set of n - f clouds
 * read the key. Every mode, f = 1 and f = 2, each cloud in turn the victim.
 */
class WriterRestartTest {
  enum Crash {
    AFTER_FIRST_DATA_PUT,
    AFTER_ALL_DATA_PUTS,
    DURING_READM,
    /** X's log lands on the victim (and, for f = 2, the next f clouds) only, then the crash. */
    DURING_WRITEM
  }

  enum Victim {
    SLOW,
    WITHHOLDING,
    REPLAYING
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int f : new int[] {1, 2}) {
      for (ProtocolMode mode : ProtocolMode.values()) {
        for (Crash crash : Crash.values()) {
          for (Victim behaviour : Victim.values()) {
            for (int victim = 0; victim < 3 * f + 1; victim++) {
              out.add(Arguments.of(f, mode, crash, behaviour, victim));
            }
          }
        }
      }
    }
    return out.stream();
  }

  /**
   * One client's view of one cloud: the test can kill the client (nothing it sends afterwards is
   * delivered, nothing it awaits completes), hold its metadata puts back, or make the cloud look
   * hung to this client only.
   */
  static final class Process {
    final Crash crash;
    final Set<String> reach;
    final int f;
    boolean armed;
    boolean dead;
    int dataPuts;
    int metaGets;
    final Set<String> landed = new HashSet<>();

    /** Metadata puts held back per cloud id, run by {@link #release}. */
    final Map<String, List<Runnable>> held = new HashMap<>();

    final Set<String> holdMetadataTo = new HashSet<>();
    final Set<String> hidden = new HashSet<>();

    Process(Crash crash, Set<String> reach, int f) {
      this.crash = crash;
      this.reach = reach;
      this.f = f;
    }

    static Process plain() {
      return new Process(null, Set.of(), 0);
    }

    void release() {
      List<Runnable> all = new ArrayList<>();
      held.values().forEach(all::addAll);
      held.clear();
      holdMetadataTo.clear();
      all.forEach(Runnable::run);
    }

    /** Whether the crash happens once {@code kind} on {@code key} at {@code cloud} landed. */
    private boolean diesAfter(String kind, ObjectKey key, String cloud) {
      if (!armed || crash == null) {
        return false;
      }
      boolean meta = key.value().startsWith("m/");
      return switch (crash) {
        case AFTER_FIRST_DATA_PUT -> kind.equals("put") && !meta && ++dataPuts == 1;
        case AFTER_ALL_DATA_PUTS -> kind.equals("put") && !meta && ++dataPuts == f + 1;
        case DURING_READM -> kind.equals("get") && meta && ++metaGets == 2;
        case DURING_WRITEM ->
            kind.equals("put") && meta && landed.add(cloud) && landed.containsAll(reach);
      };
    }

    CloudDriver wrap(CloudDriver d) {
      return new CloudDriver() {
        @Override
        public String id() {
          return d.id();
        }

        private <T> CompletableFuture<T> call(
            String kind, ObjectKey key, java.util.function.Supplier<CompletableFuture<T>> send) {
          if (dead || hidden.contains(d.id())) {
            return new CompletableFuture<>();
          }
          boolean meta = key.value().startsWith("m/");
          if (armed && crash == Crash.DURING_WRITEM && kind.equals("put") && meta) {
            if (!reach.contains(d.id())) {
              // The process dies before this request leaves it.
              return new CompletableFuture<>();
            }
          }
          CompletableFuture<T> out = new CompletableFuture<>();
          Runnable go =
              () ->
                  send.get()
                      .whenComplete(
                          (r, e) -> {
                            if (e == null && diesAfter(kind, key, d.id())) {
                              dead = true;
                            }
                            if (!dead) {
                              Futures.completer(out).accept(r, e);
                            }
                          });
          if (kind.equals("put") && meta && holdMetadataTo.contains(d.id())) {
            held.computeIfAbsent(d.id(), x -> new ArrayList<>()).add(go);
          } else {
            go.run();
          }
          return out;
        }

        @Override
        public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
          return call("put", key, () -> d.put(key, data));
        }

        @Override
        public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
          return call("get", key, () -> d.get(key, range));
        }

        @Override
        public CompletableFuture<Void> delete(ObjectKey key) {
          return call("delete", key, () -> d.delete(key));
        }

        @Override
        public CompletableFuture<List<ObjectInfo>> list(String prefix) {
          return call("list", ObjectKey.of("l/" + prefix), () -> d.list(prefix));
        }

        @Override
        public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
          return call("list", ObjectKey.of("l/" + prefix), () -> d.list(prefix, startAfter, limit));
        }

        @Override
        public void close() {}
      };
    }
  }

  static RafeStore client(Harness h, ProtocolMode mode, Process p) {
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(h.f)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .writer("alice", Harness.ALICE);
    for (TestCloud c : h.clouds) {
      b.cloud(p.wrap(c), CloudRole.DATA_AND_METADATA, c.rtt());
    }
    return b.build();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static Harness harness(int f) {
    Harness h = new Harness(f, 3 * f + 1);
    long[] rtts = new long[3 * f + 1];
    for (int i = 0; i < rtts.length; i++) {
      rtts[i] = 20 + 40L * i;
    }
    return h.rtts(rtts);
  }

  @ParameterizedTest(name = "f={0} {1} crash {2}, victim p{4} {3}")
  @MethodSource("cases")
  void aRestartedWriterNeverForksItsHistory(
      int f, ProtocolMode mode, Crash crash, Victim behaviour, int victim) throws Exception {
    Harness h = harness(f);
    int n = 3 * f + 1;
    String victimId = "p" + victim;
    RafeStore first = client(h, mode, Process.plain());
    WriteReceipt v1 = h.run(first.write("k", utf8("v1")));
    WriteReceipt v2 = h.run(first.write("k", utf8("v2")));

    // X: a second client of alice dies at the crash point.
    Set<String> reach = new HashSet<>();
    for (int i = 0; i <= (f == 1 ? 0 : f); i++) {
      reach.add("p" + ((victim + i) % n));
    }
    Process doomed = new Process(crash, reach, f);
    RafeStore x = client(h, mode, doomed);
    h.run(x.read("k"));
    doomed.armed = true;
    CompletableFuture<WriteReceipt> dying = x.write("k", utf8("X"));
    h.scheduler.advance(Duration.ofSeconds(5));
    assertThat(doomed.dead).as("the crash point was reached").isTrue();
    assertThat(dying).isNotDone();

    // Y: alice restarts while the victim is slow, withholding or replaying, and Y's log reaches
    // the victim only later.
    switch (behaviour) {
      case SLOW -> h.clouds.get(victim).behave(TestCloud.Behaviour.SLOW);
      case WITHHOLDING -> h.clouds.get(victim).behave(TestCloud.Behaviour.HANG);
      case REPLAYING -> h.clouds.get(victim).behave(TestCloud.Behaviour.STALE);
    }
    Process restartedProcess = Process.plain();
    restartedProcess.holdMetadataTo.add(victimId);
    RafeStore restarted = client(h, mode, restartedProcess);
    WriteReceipt y = h.run(restarted.write("k", utf8("Y")));
    assertThat(y.version()).isGreaterThan(v2.version());
    h.clouds.get(victim).behave(TestCloud.Behaviour.CORRECT);

    Map<Version, String> written = new HashMap<>();
    written.put(v1.version(), "v1");
    written.put(v2.version(), "v2");
    written.put(y.version(), "Y");
    checkEveryReader(h, y, written, "after Y");

    // Y's log reaches the victim; then alice writes Z. Every reader sees Z, and history keeps Y.
    restartedProcess.release();
    h.scheduler.advance(Duration.ofSeconds(30));
    WriteReceipt z = h.run(restarted.write("k", utf8("Z")));
    assertThat(z.version()).isGreaterThan(y.version());
    written.put(z.version(), "Z");
    checkEveryReader(h, z, written, "after Z");
    h.scheduler.advance(Duration.ofSeconds(60));
    RafeStore checker = client(h, mode, Process.plain());
    // A cloud that withheld during Y may lack Y's data (DepSky-CA lists a piece on every cloud);
    // repair rebuilds it: the logs themselves need no repair once Z landed everywhere.
    var repaired = h.run(checker.repair("k"));
    assertThat(repaired.failures()).as("repair failures").isEmpty();
    assertThat(repaired.before().findings())
        .as("only data findings before repair")
        .allSatisfy(
            finding -> assertThat(finding.problem().name()).isIn("DATA_MISSING", "DATA_CORRUPT"));
    assertThat(h.run(checker.verify("k")).isClean())
        .as(
            "f=%d %s %s %s victim p%d: verify after Z reached every cloud: %s",
            f, mode, crash, behaviour, victim, h.run(checker.verify("k")))
        .isTrue();
  }

  /**
   * Readers that each hear a different n - f clouds: {@code latest} or a newer crashed version is
   * read, never {@code latest}'s version with other bytes; every completed version reads back with
   * its bytes and appears once in history with its hash.
   */
  private static void checkEveryReader(
      Harness h, WriteReceipt latest, Map<Version, String> written, String when) throws Exception {
    int n = h.clouds.size();
    for (Set<String> hidden : hiddenSets(n, h.f)) {
      Process p = Process.plain();
      p.hidden.addAll(hidden);
      RafeStore reader = client(h, ProtocolMode.PAPER, p);
      String as = when + ", reader not hearing " + hidden;
      StoredValue got = h.run(reader.read("k"));
      if (got.version().equals(latest.version())) {
        assertThat(got.utf8()).as(as).isEqualTo(written.get(latest.version()));
      } else {
        // Only a crashed write, under a version of its own, may be newer than a completed one.
        assertThat(got.version()).as(as).isGreaterThan(latest.version());
        assertThat(written).as(as).doesNotContainKey(got.version());
        assertThat(got.utf8()).as(as).isEqualTo("X");
        assertThat(got.version().incarnation()).isNotEqualTo(latest.version().incarnation());
      }
      for (Map.Entry<Version, String> w : written.entrySet()) {
        assertThat(h.run(reader.read("k", w.getKey())).utf8()).as(as).isEqualTo(w.getValue());
      }
      HistoryPage page = h.run(reader.history("k", Optional.empty(), 100));
      List<Version> seen = new ArrayList<>();
      for (VersionInfo info : page.versions()) {
        seen.add(info.version());
        String expected = written.get(info.version());
        if (expected != null && info.version().equals(latest.version())) {
          assertThat(info.sha256()).as(as).isEqualTo(latest.info().sha256());
        }
      }
      assertThat(new HashSet<>(seen)).as(as + ": history has no duplicates").hasSize(seen.size());
      assertThat(seen).as(as).containsAll(written.keySet());
      reader.close();
    }
  }

  /** Every set of f clouds for f = 1; for f = 2, each pair of neighbours. */
  static List<Set<String>> hiddenSets(int n, int f) {
    List<Set<String>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Set<String> s = new HashSet<>();
      for (int j = 0; j < f; j++) {
        s.add("p" + ((i + j) % n));
      }
      out.add(s);
    }
    return out;
  }

  /**
   * The report's exact scenario, checked at the level of logs: two validly signed logs of alice
   * with one sequence number now exist, and a reader that hears both merges them.
   */
  @Test
  void forkedLogsOfTwoIncarnationsAreMergedNotPicked() throws Exception {
    Harness h = harness(1);
    RafeStore first = client(h, ProtocolMode.PAPER, Process.plain());
    h.run(first.write("k", utf8("v1")));
    h.run(first.write("k", utf8("v2")));
    Process doomed = new Process(Crash.DURING_WRITEM, Set.of("p0"), 1);
    RafeStore x = client(h, ProtocolMode.PAPER, doomed);
    h.run(x.read("k"));
    doomed.armed = true;
    x.write("k", utf8("X"));
    h.scheduler.advance(Duration.ofSeconds(5));
    h.clouds.get(0).behave(TestCloud.Behaviour.SLOW);
    Process later = Process.plain();
    later.holdMetadataTo.add("p0");
    RafeStore restarted = client(h, ProtocolMode.PAPER, later);
    WriteReceipt y = h.run(restarted.write("k", utf8("Y")));
    h.clouds.get(0).behave(TestCloud.Behaviour.CORRECT);

    MetadataCodec codec = new MetadataCodec();
    List<MetadataLog> logs = new ArrayList<>();
    for (var m : h.stores) {
      byte[] bytes = h.run(m.get(io.rafestore.internal.util.Names.metadataObject("k", "alice")));
      logs.add(codec.decode(bytes, "k", "alice", Harness.ALICE.getPublic(), 1 << 20));
    }
    MetadataLog onVictim = logs.get(0);
    MetadataLog elsewhere = logs.get(1);
    assertThat(onVictim.sequence()).isEqualTo(elsewhere.sequence());
    assertThat(onVictim.incarnation()).isNotEqualTo(elsewhere.incarnation());
    MetadataLog merged = LogMerge.merge(logs);
    assertThat(merged.entries()).hasSize(4);
    assertThat(merged.entries().get(2).timestamp()).isEqualTo(merged.entries().get(3).timestamp());
    Set<Version> versions = new HashSet<>();
    merged.entries().forEach(e -> versions.add(e.version("alice")));
    assertThat(versions).contains(y.version()).hasSize(4);
    // Verify names the fork and repair does not copy one log over the other.
    RafeStore checker = client(h, ProtocolMode.PAPER, Process.plain());
    var report = h.run(checker.repair("k"));
    assertThat(report.before().isClean()).isFalse();
    assertThat(report.before().toString()).contains("forked");
    byte[] still =
        h.run(h.stores.get(0).get(io.rafestore.internal.util.Names.metadataObject("k", "alice")));
    assertThat(codec.decode(still, "k", "alice", Harness.ALICE.getPublic(), 1 << 20))
        .isEqualTo(onVictim);
    // The writer's next write merges the fork: its log holds X and Y, and verify is clean.
    later.release();
    h.scheduler.advance(Duration.ofSeconds(5));
    // Put X's log back on p0 as the late puts could leave it, then write once more.
    h.run(
        h.stores
            .get(0)
            .put(
                io.rafestore.internal.util.Names.metadataObject("k", "alice"),
                codec.encode(onVictim, Harness.ALICE.getPrivate())));
    RafeStore reader = client(h, ProtocolMode.PAPER, Process.plain());
    h.run(reader.read("k"));
    WriteReceipt z = h.run(restarted.write("k", utf8("Z")));
    h.scheduler.advance(Duration.ofSeconds(60));
    byte[] after =
        h.run(h.stores.get(1).get(io.rafestore.internal.util.Names.metadataObject("k", "alice")));
    MetadataLog zLog = codec.decode(after, "k", "alice", Harness.ALICE.getPublic(), 1 << 20);
    assertThat(zLog.entries().get(zLog.entries().size() - 1).version("alice"))
        .isEqualTo(z.version());
    assertThat(h.run(checker.verify("k")).isClean()).isTrue();
  }

  /**
   * A delete cut by a crash whose tombstone reached one cloud, and the restarted writer's next
   * write, which did not hear that cloud: both carry the same timestamp (one above what each readM
   * saw) and are ordered by incarnation, a random number. Where the tombstone orders higher, a
   * reader that hears its cloud finds nothing although the write completed after the crash: the
   * delete takes effect late, as regular semantics allow an operation that never completed. Where
   * it orders lower, every reader reads the write. Either way the tombstone's version alone decides
   * (the stress test's checker bounds a crashed delete by it); the test repeats the scenario until
   * both orders have occurred.
   */
  @Test
  void aCrashedDeleteTiedWithTheRestartedWritersWriteHidesItOnlyIfItOrdersHigher()
      throws Exception {
    boolean sawHidden = false;
    boolean sawRead = false;
    for (int attempt = 0; attempt < 64 && !(sawHidden && sawRead); attempt++) {
      Harness h = harness(1);
      RafeStore first = client(h, ProtocolMode.PAPER, Process.plain());
      WriteReceipt v1 = h.run(first.write("k", utf8("v1")));
      Process doomed = new Process(Crash.DURING_WRITEM, Set.of("p0"), 1);
      RafeStore x = client(h, ProtocolMode.PAPER, doomed);
      h.run(x.read("k"));
      doomed.armed = true;
      CompletableFuture<Void> dying = x.delete("k");
      h.scheduler.advance(Duration.ofSeconds(5));
      assertThat(doomed.dead).as("the delete died in writeM").isTrue();
      assertThat(dying).isNotDone();
      MetadataCodec codec = new MetadataCodec();
      MetadataLog onVictim =
          codec.decode(
              h.run(
                  h.stores
                      .get(0)
                      .get(io.rafestore.internal.util.Names.metadataObject("k", "alice"))),
              "k",
              "alice",
              Harness.ALICE.getPublic(),
              1 << 20);
      var last = onVictim.entries().get(onVictim.entries().size() - 1);
      assertThat(last.kind())
          .isEqualTo(io.rafestore.internal.protocol.metadata.LogEntry.Kind.TOMBSTONE);
      Version tombstone = last.version("alice");
      assertThat(tombstone.timestamp()).isEqualTo(v1.version().timestamp() + 1);

      // alice restarts without hearing p0 and writes Y.
      Process restartedProcess = Process.plain();
      restartedProcess.hidden.add("p0");
      RafeStore restarted = client(h, ProtocolMode.PAPER, restartedProcess);
      WriteReceipt y = h.run(restarted.write("k", utf8("Y")));
      assertThat(y.version().timestamp()).isEqualTo(tombstone.timestamp());
      assertThat(y.version().incarnation()).isNotEqualTo(tombstone.incarnation());

      // A reader that hears p0 merges both incarnations' logs; one that does not reads Y.
      Process hearsP0 = Process.plain();
      hearsP0.hidden.add("p1");
      RafeStore reader = client(h, ProtocolMode.PAPER, hearsP0);
      CompletableFuture<StoredValue> read = reader.read("k");
      h.scheduler.runUntilDone(read.handle((v, e) -> null));
      if (tombstone.compareTo(y.version()) > 0) {
        assertThat(read)
            .as("tombstone %s above Y %s", tombstone, y.version())
            .failsWithin(Duration.ZERO)
            .withThrowableOfType(java.util.concurrent.ExecutionException.class)
            .withCauseInstanceOf(io.rafestore.KeyNotFoundException.class);
        sawHidden = true;
      } else {
        assertThat(read.join().utf8()).as("tombstone %s below Y %s", tombstone, y).isEqualTo("Y");
        sawRead = true;
      }
      Process notP0 = Process.plain();
      notP0.hidden.add("p0");
      RafeStore other = client(h, ProtocolMode.PAPER, notP0);
      assertThat(h.run(other.read("k")).utf8()).isEqualTo("Y");
      for (RafeStore c : List.of(first, x, restarted, reader, other)) {
        c.close();
      }
    }
    assertThat(sawHidden).as("some attempt ordered the tombstone above Y").isTrue();
    assertThat(sawRead).as("some attempt ordered it below").isTrue();
  }
}
