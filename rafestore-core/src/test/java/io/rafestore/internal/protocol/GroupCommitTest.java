package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.HistoryPage;
import io.rafestore.ProtocolMode;
import io.rafestore.QuorumException;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import io.rafestore.internal.protocol.metadata.Logs;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Group commit (issue 18): inline writes of one client to one key that arrive while a round of the
 * key is in flight share the next round (one readM, one writeM of a log carrying all their
 * entries), on in-memory clouds behind Table 1's round trips on virtual time, counting requests.
 */
class GroupCommitTest {
  static final String KEY = "thread/42";

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static long puts(RafeStore store) {
    return store.stats().values().stream().mapToLong(CloudStats::puts).sum();
  }

  static long gets(RafeStore store) {
    return store.stats().values().stream().mapToLong(CloudStats::gets).sum();
  }

  /** Starts {@code count} writes of {@code key} at the same instant: "w0", "w1", ... */
  static List<CompletableFuture<WriteReceipt>> burst(RafeStore store, String key, int count) {
    List<CompletableFuture<WriteReceipt>> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(store.write(key, utf8("w" + i)));
    }
    return out;
  }

  static Throwable cause(CompletableFuture<?> f) throws InterruptedException {
    try {
      f.get();
      throw new AssertionError("expected a failure");
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  static List<WriteReceipt> all(Harness h, List<CompletableFuture<WriteReceipt>> writes)
      throws ExecutionException {
    h.run(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
    List<WriteReceipt> out = new ArrayList<>();
    for (CompletableFuture<WriteReceipt> w : writes) {
      out.add(w.join());
    }
    return out;
  }

  /**
   * FAST skips a group's readM only for a sole writer (Settings.soleWriter): with an operator key
   * configured a certified writer may appear at any time, so every round runs readM, and the second
   * round ends a readM and a writeM (1,500 ms) after the first instead of a writeM (750 ms).
   */
  @Test
  void fastRunsEveryRoundsReadMWhenOperatorKeysAreConfigured() throws Exception {
    for (boolean operator : new boolean[] {false, true}) {
      Harness h = new Harness(1, 4).rtts(Harness.table1());
      RafeStore.Builder b =
          h.inline(ProtocolMode.FAST).writerDiscovery(io.rafestore.WriterDiscovery.PER_WRITER);
      if (operator) {
        b.trustOperator("ops", io.rafestore.SigningKeys.generate().getPublic());
      }
      try (RafeStore alice = b.build()) {
        List<WriteReceipt> receipts = all(h, burst(alice, KEY, 10));
        assertThat(receipts.get(9).latency().minus(receipts.get(0).latency()))
            .as("second round after the first, operator key: %s", operator)
            .isEqualTo(Duration.ofMillis(operator ? 1500 : 750));
      }
    }
  }

  /**
   * Ten writes at one instant: the first finds the key idle and goes at once (its round alone), the
   * nine others queue behind it and share the next round. So 2 rounds, 2 x n metadata puts (values
   * of a few bytes, far below the packing trigger: no data put), instead of 10 x n one round each;
   * readM twice (PAPER) or once (FAST: the sole writer's second round knows its log). Each write
   * has its own version, in call order; a reader finds all ten, each with its bytes.
   */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void writesArrivingDuringARoundShareTheNextOne(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    try (RafeStore alice = h.inline(mode).build();
        RafeStore reader =
            h.build(
                mode,
                (i, c) -> CloudRole.DATA_AND_METADATA,
                "bob",
                Harness.BOB,
                List.of("alice"),
                List.of(Harness.ALICE))) {
      List<WriteReceipt> receipts = all(h, burst(alice, KEY, 10));
      h.scheduler.advance(Duration.ofSeconds(2));
      assertThat(puts(alice)).as("metadata puts of 2 rounds").isEqualTo(2 * 4);
      assertThat(gets(alice)).as("readM's gets").isEqualTo(mode == ProtocolMode.PAPER ? 8 : 4);
      // The first alone at the floor (readM 750 ms + writeM 750 ms), the rest one round later.
      assertThat(receipts.get(0).latency()).isEqualTo(Duration.ofMillis(1500));
      Duration second = Duration.ofMillis(mode == ProtocolMode.PAPER ? 3000 : 2250);
      for (int i = 1; i < 10; i++) {
        assertThat(receipts.get(i).latency()).as("write %d", i).isEqualTo(second);
        assertThat(receipts.get(i).version())
            .as("versions in call order")
            .isGreaterThan(receipts.get(i - 1).version());
        assertThat(receipts.get(i).version().timestamp())
            .isEqualTo(receipts.get(i - 1).version().timestamp() + 1);
      }
      assertThat(h.run(reader.read(KEY)).utf8()).isEqualTo("w9");
      HistoryPage page = h.run(reader.history(KEY, Optional.empty(), 100));
      assertThat(page.versions()).hasSize(10);
      for (int i = 0; i < 10; i++) {
        StoredValue v = h.run(reader.read(KEY, receipts.get(i).version()));
        assertThat(v.utf8()).isEqualTo("w" + i);
      }
    }
    // The same burst without group commit: one round per write.
    Harness plain = new Harness(1, 4).rtts(Harness.table1());
    try (RafeStore alice = plain.inline(mode).groupCommit(false).build()) {
      List<WriteReceipt> receipts = all(plain, burst(alice, KEY, 10));
      plain.scheduler.advance(Duration.ofSeconds(2));
      assertThat(puts(alice)).isEqualTo(10 * 4);
      assertThat(receipts.get(9).latency()).isGreaterThan(Duration.ofMillis(7000));
    }
  }

  /**
   * No timer: a write that finds its key idle goes at once, exactly as fast as without group
   * commit, whether the client is idle, just finished a burst of the key, or has a round of another
   * key in flight.
   */
  @Test
  void aLoneWriteIsNotDelayed() throws Exception {
    for (boolean group : new boolean[] {true, false}) {
      Harness h = new Harness(1, 4).rtts(Harness.table1());
      try (RafeStore alice = h.inline(ProtocolMode.FAST).groupCommit(group).build()) {
        assertThat(h.run(alice.write(KEY, utf8("first"))).latency())
            .as("readM then writeM, group commit %s", group)
            .isEqualTo(Duration.ofMillis(1500));
        for (int i = 0; i < 3; i++) {
          assertThat(h.run(alice.write(KEY, utf8("next" + i))).latency())
              .as("writeM alone, group commit %s", group)
              .isEqualTo(Duration.ofMillis(750));
        }
        all(h, burst(alice, KEY, 5));
        assertThat(h.run(alice.write(KEY, utf8("after the burst"))).latency())
            .isEqualTo(Duration.ofMillis(750));
        // A round of another key in flight does not hold this key's write.
        List<CompletableFuture<WriteReceipt>> other = burst(alice, "other", 3);
        assertThat(h.run(alice.write(KEY, utf8("beside another key"))).latency())
            .isEqualTo(Duration.ofMillis(750));
        all(h, other);
      }
    }
  }

  /**
   * A round whose writeM fails (its log reached p0 only) fails every write in it, with an error
   * that says so; the next write's log extends the failed rounds' (never a second log of their
   * sequence), so a reader that hears p0's stale log and two clouds with the new one reads the new
   * write as the latest, finds every version once, and finds the failed writes, carried forward by
   * the next log, under versions of their own below it.
   */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void aFailedRoundFailsEveryWriteInItAndTheNextLogExtendsIt(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4).rtts(20, 60, 100, 140);
    FailedWriteMTest.Gate gate = new FailedWriteMTest.Gate(h.scheduler);
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .inlineThreshold(64 * 1024)
            .writer("alice", Harness.ALICE);
    for (TestCloud c : h.clouds) {
      b.cloud(gate.wrap(c), CloudRole.DATA_AND_METADATA, c.rtt());
    }
    try (RafeStore alice = b.build();
        RafeStore reader =
            h.build(
                mode,
                (i, c) -> CloudRole.DATA_AND_METADATA,
                "bob",
                Harness.BOB,
                List.of("alice"),
                List.of(Harness.ALICE))) {
      h.run(alice.write(KEY, utf8("v1")));

      // Three writes at once: "w0" alone, then "w1" and "w2" in one round; every log on p0 only.
      gate.refuseMetadataPuts.addAll(List.of("p1", "p2", "p3"));
      List<CompletableFuture<WriteReceipt>> failed = burst(alice, KEY, 3);
      for (int i = 0; i < 3; i++) {
        CompletableFuture<WriteReceipt> w = failed.get(i);
        assertThatThrownBy(() -> h.run(w))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(QuorumException.class);
      }
      assertThat(((QuorumException) cause(failed.get(0))).phase())
          .isEqualTo("writeM of '" + KEY + "'");
      for (int i = 1; i < 3; i++) {
        assertThat(((QuorumException) cause(failed.get(i))).phase())
            .isEqualTo("writeM (group commit of 2 writes) of '" + KEY + "'");
      }

      // Y: p0 keeps the failed rounds' log (acknowledges Y's without storing it), readM skips p0.
      gate.refuseMetadataPuts.clear();
      gate.unheard.add("p0");
      h.clouds.get(0).behave(Behaviour.DROP_WRITES);
      WriteReceipt y = h.run(alice.write(KEY, utf8("Y")));
      gate.unheard.clear();
      h.clouds.get(0).behave(Behaviour.CORRECT);
      h.clouds.get(3).behave(Behaviour.HANG);

      StoredValue latest = h.run(reader.read(KEY));
      assertThat(latest.utf8()).isEqualTo("Y");
      assertThat(latest.version()).isEqualTo(y.version());
      HistoryPage page = h.run(reader.history(KEY, Optional.empty(), 100));
      Set<Version> seen = new HashSet<>();
      List<String> values = new ArrayList<>();
      for (VersionInfo v : page.versions()) {
        assertThat(seen.add(v.version())).as("%s listed once", v.version()).isTrue();
        values.add(h.run(reader.read(KEY, v.version())).utf8());
      }
      // Newest first: Y, then the failed writes its log carried, each once, then v1.
      assertThat(values).containsExactly("Y", "w2", "w1", "w0", "v1");
    }
  }

  /**
   * A burst of values that together pass the inline budget is cut into rounds of at most half the
   * budget, and packing keeps every stored log under the budget; every version reads back.
   */
  @Test
  void roundsKeepTheLogUnderTheInlineBudget() throws Exception {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    int size = 20 * 1024;
    try (RafeStore alice = h.inline(ProtocolMode.FAST).build()) {
      List<CompletableFuture<WriteReceipt>> writes = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        writes.add(alice.write(KEY, InlineTest.value(i, size)));
      }
      long budget = Harness.settings(alice).inlineLogBudget();
      for (CompletableFuture<WriteReceipt> w : writes) {
        h.run(w);
        for (int c = 0; c < 4; c++) {
          MetadataLog log = InlineTest.storedLog(h, c, KEY);
          assertThat(Logs.inlineBytes(log))
              .as("inline bytes on p%d", c)
              .isLessThanOrEqualTo(budget);
        }
      }
      List<Long> timestamps = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        WriteReceipt r = writes.get(i).join();
        timestamps.add(r.version().timestamp());
        assertThat(h.run(alice.read(KEY, r.version())).value())
            .isEqualTo(InlineTest.value(i, size));
      }
      assertThat(timestamps).isSorted().doesNotHaveDuplicates();
    }
  }

  /**
   * Sealed inline values (the confidentiality option) in one round: each cloud's envelope carries
   * its share of every entry of the round, so a reader that never saw the shares reads each version
   * from the clouds; no cloud stores a value in clear.
   */
  @Test
  void sealedValuesInOneRoundEachKeepTheirKeyShares() throws Exception {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    try (RafeStore alice = h.inline(ProtocolMode.PAPER).encryptValues(true).build();
        RafeStore reader =
            h.build(
                ProtocolMode.PAPER,
                (i, c) -> CloudRole.DATA_AND_METADATA,
                "bob",
                Harness.BOB,
                List.of("alice"),
                List.of(Harness.ALICE))) {
      List<CompletableFuture<WriteReceipt>> writes = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        writes.add(alice.write(KEY, utf8("confidential value " + i)));
      }
      List<WriteReceipt> receipts = all(h, writes);
      h.scheduler.advance(Duration.ofSeconds(2));
      assertThat(puts(alice)).as("metadata puts of 2 rounds").isEqualTo(2 * 4);
      for (int i = 0; i < 6; i++) {
        assertThat(h.run(reader.read(KEY, receipts.get(i).version())).utf8())
            .isEqualTo("confidential value " + i);
      }
      for (io.rafestore.clouds.MemoryCloud m : h.stores) {
        for (io.rafestore.spi.ObjectInfo o : h.run(m.list(""))) {
          String stored = new String(h.run(m.get(o.key())), StandardCharsets.ISO_8859_1);
          assertThat(stored).as(o.key().value()).doesNotContain("confidential");
        }
      }
    }
  }
}
