package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.HistoryPage;
import io.rafestore.Phase;
import io.rafestore.PhaseTiming;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.RetentionPolicy;
import io.rafestore.StoredValue;
import io.rafestore.VerifyReport;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.Logs;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.write.Packer;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Inline values and their packing (issue 16, item 1), end to end on in-memory clouds and virtual
 * time: the write is one metadata round, reads fetch no data, older inline values are packed into
 * one data object whose entries replace them, the log stays under its inline budget, and packs are
 * covered by history, collection, deletion, verify, repair and crash recovery.
 */
class InlineTest {
  static final String KEY = "notes/inline";

  static byte[] value(int i, int size) {
    byte[] v = new byte[size];
    new SplittableRandom(i).nextBytes(v);
    return v;
  }

  /** The signed log of alice for {@code key} as cloud {@code i} stores it. */
  static MetadataLog storedLog(Harness h, int i, String key) throws Exception {
    return storedLog(new MetadataCodec(), h, i, key);
  }

  /**
   * As {@link #storedLog(Harness, int, String)}, decoded and verified by {@code codec}: one codec
   * parses and verifies each distinct byte string once (its cache of verified logs, by their
   * SHA-256), so a test that reads the same stored log from several clouds, or again before it
   * changed, pays for it once. It is not the client's codec, so nothing is taken on trust from what
   * the client signed.
   */
  static MetadataLog storedLog(MetadataCodec codec, Harness h, int i, String key) throws Exception {
    byte[] bytes = h.run(h.stores.get(i).get(Names.metadataObject(key, "alice")));
    return codec.decodeEnvelope(bytes, key, "alice", Harness.ALICE.getPublic(), 8 << 20).log();
  }

  /** Every data object ({@code d/...}) on every cloud. */
  static Set<String> dataObjects(Harness h) throws Exception {
    Set<String> out = new HashSet<>();
    for (MemoryCloud m : h.stores) {
      for (ObjectInfo o : h.run(m.list("d/"))) {
        out.add(m.id() + ":" + o.key().value());
      }
    }
    return out;
  }

  static long puts(RafeStore store) {
    return store.stats().values().stream().mapToLong(io.rafestore.CloudStats::puts).sum();
  }

  static long gets(RafeStore store) {
    return store.stats().values().stream().mapToLong(io.rafestore.CloudStats::gets).sum();
  }

  static List<Phase> phases(WriteReceipt r) {
    return r.phases().stream().map(PhaseTiming::phase).toList();
  }

  /**
   * Table 1 Configuration 1 (p0 5 ms, p1 315 ms, p2 750 ms, p3 1200 ms): a FAST sole writer that
   * knows its log writes a small value in one writeM round, completing at the third-fastest cloud's
   * round trip (750 ms), with no data put at all; its first write, which has to read its log, is
   * readM then writeM (1,500 ms).
   */
  @Test
  void aFastSoleWriterInlineWriteIsOneWriteMRoundAtTheFloor() throws Exception {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    try (RafeStore store = h.inline(ProtocolMode.FAST).build()) {
      WriteReceipt first = h.run(store.write(KEY, value(1, 1024)));
      assertThat(phases(first)).containsExactly(Phase.READ_M, Phase.WRITE_M);
      assertThat(first.latency()).isEqualTo(Duration.ofMillis(1500));
      for (int i = 2; i <= 3; i++) {
        long before = puts(store);
        WriteReceipt r = h.run(store.write(KEY, value(i, 1024)));
        assertThat(r.readMSkipped()).isTrue();
        assertThat(r.dataCloudsContacted()).isEmpty();
        assertThat(r.info().dataClouds()).isEmpty();
        assertThat(phases(r)).containsExactly(Phase.WRITE_M);
        assertThat(r.latency()).isEqualTo(Duration.ofMillis(750));
        // Exactly n metadata puts: the acknowledged three and p3's, which lingers and lands.
        h.scheduler.advance(Duration.ofSeconds(2));
        assertThat(puts(store) - before).isEqualTo(4);
      }
      assertThat(dataObjects(h)).as("no data object at all").isEmpty();
    }
  }

  /** PAPER (and FAST with another trusted writer): readM then writeM, no writeDo, no data. */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void anInlineWriteThatMustReadItsLogIsReadMThenWriteM(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    try (RafeStore store = h.inline(mode).trustWriter("bob", Harness.BOB.getPublic()).build()) {
      for (int i = 1; i <= 3; i++) {
        WriteReceipt r = h.run(store.write(KEY, value(i, 100)));
        assertThat(phases(r)).containsExactly(Phase.READ_M, Phase.WRITE_M);
        assertThat(r.readMSkipped()).isFalse();
        assertThat(r.dataCloudsContacted()).isEmpty();
        assertThat(r.latency()).isEqualTo(Duration.ofMillis(1500));
      }
      assertThat(dataObjects(h)).isEmpty();
    }
  }

  /** A read of an inline version gets only the logs: n gets for readM, no data get. */
  @Test
  void readsOfInlineVersionsFetchNoData() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    try (RafeStore store = h.inline(ProtocolMode.PAPER).build()) {
      Map<Version, byte[]> written = new LinkedHashMap<>();
      for (int i = 1; i <= 3; i++) {
        byte[] v = value(i, 500);
        written.put(h.run(store.write(KEY, v)).version(), v);
      }
      h.scheduler.advance(Duration.ofSeconds(1));
      for (Map.Entry<Version, byte[]> e : written.entrySet()) {
        long before = gets(store);
        StoredValue read = h.run(store.read(KEY, e.getKey()));
        assertThat(read.value()).isEqualTo(e.getValue());
        assertThat(read.servedBy()).isEqualTo("(inline)");
        assertThat(h.run(store.read(KEY, e.getKey(), 100, 50)))
            .isEqualTo(Arrays.copyOfRange(e.getValue(), 100, 150));
        h.scheduler.advance(Duration.ofSeconds(1));
        // Two readM rounds (the read and the ranged read), one get per cloud each.
        assertThat(gets(store) - before).isEqualTo(8);
      }
    }
  }

  /** A store that packs as soon as two inline values exist (trigger 0). */
  static RafeStore packingStore(Harness h, ProtocolMode mode) {
    return h.builder(mode).inlineThreshold(1024).inlineLogBudget(1024).build();
  }

  /**
   * The log the packer signs itself is remembered as signed, as every log a write signs is, so the
   * next readM of the key recognises its bytes instead of verifying its signature again (a PAPER
   * write paid one Ed25519 verification after every pack). Seen through the client's own codec,
   * whose verifications its signature provider counts: the stored bytes decode without one. (The
   * cache is each client's own, so another codec would verify them.)
   */
  @Test
  void aLogThePackerSignsIsRecognisedWithoutVerifyingItAgain() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    VerifiedLogCacheTest.CountingEd25519 counted = new VerifiedLogCacheTest.CountingEd25519();
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER)
            .inlineThreshold(1024)
            .inlineLogBudget(1024)
            .signatureProvider(counted)
            .build()) {
      for (int i = 1; i <= 6; i++) {
        h.run(store.write(KEY, value(i, 300)));
      }
      // Past the commit delay: the packer writes the log itself (no write came to carry it).
      h.scheduler.advance(Packer.COMMIT_DELAY.multipliedBy(3));
      assertThat(storedLog(h, 0, KEY).entries().get(0).coding()).isEqualTo(LogEntry.Coding.PACKED);
      // The stored bytes, through the client's own codec (what its next readM decodes them with).
      byte[] bytes = h.run(h.stores.get(0).get(Names.metadataObject(KEY, "alice")));
      Client client = (Client) store;
      MetadataCodec own = client.contextForTests().codec;
      // The key as the client holds it (translated into its provider's class, as readM uses it).
      java.security.PublicKey key = client.settings().writerKeys().getPublic();
      assertThat(own.decodeEnvelope(bytes, KEY, "alice", key, 8 << 20).log())
          .isEqualTo(storedLog(h, 0, KEY));
      assertThat(counted.verifies()).as("verifications by the client that signed").isZero();
    }
  }

  /**
   * Older inline values are packed: one data object on f+1 data clouds, the log's entries replaced
   * by packed ones (same versions, same bytes), history lists every version, and a read of a packed
   * version fetches its range of the pack from a holder.
   */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void olderInlineValuesArePackedAndStayReadableUnderTheirVersions(ProtocolMode mode)
      throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    try (RafeStore store = packingStore(h, mode)) {
      Map<Version, byte[]> written = new LinkedHashMap<>();
      for (int i = 1; i <= 6; i++) {
        byte[] v = value(i, 300);
        written.put(h.run(store.write(KEY, v)).version(), v);
      }
      // Past the commit delay: the packer writes the log itself (no write came to carry it).
      h.scheduler.advance(Packer.COMMIT_DELAY.multipliedBy(3));
      MetadataLog log = storedLog(h, 0, KEY);
      List<LogEntry.Coding> codings = log.entries().stream().map(LogEntry::coding).toList();
      assertThat(codings.subList(0, 5)).containsOnly(LogEntry.Coding.PACKED);
      assertThat(codings.get(5)).isEqualTo(LogEntry.Coding.INLINE);
      assertThat(Logs.inlineBytes(log)).isEqualTo(300);
      Set<String> packs = new HashSet<>();
      for (LogEntry e : log.entries().subList(0, 5)) {
        packs.add(e.pack().object());
        assertThat(e.holders()).hasSize(2);
      }
      // Every pack is on f+1 clouds (the holders), under the key's data prefix.
      for (String p : packs) {
        assertThat(p).startsWith("d/");
      }
      HistoryPage page = h.run(store.history(KEY, Optional.empty(), 100));
      assertThat(page.versions())
          .extracting(VersionInfo::version)
          .containsExactlyElementsOf(
              written.keySet().stream().sorted((a, b) -> -a.compareTo(b)).toList());
      for (Map.Entry<Version, byte[]> e : written.entrySet()) {
        StoredValue read = h.run(store.read(KEY, e.getKey()));
        assertThat(read.value()).isEqualTo(e.getValue());
      }
      StoredValue packed = h.run(store.read(KEY, written.keySet().iterator().next()));
      assertThat(packed.servedBy()).matches("p[0-3]");
      assertThat(h.run(store.read(KEY)).value()).isEqualTo(value(6, 300));
      // A second client (another process) reads them too.
      try (RafeStore reader = h.client(ProtocolMode.PAPER)) {
        for (Map.Entry<Version, byte[]> e : written.entrySet()) {
          assertThat(h.run(reader.read(KEY, e.getKey())).value()).isEqualTo(e.getValue());
        }
      }
    }
  }

  /**
   * Over 10,000 writes of random sizes up to the threshold, the log's inline bytes never exceed the
   * budget on any cloud (collections every 500 writes keep the log's history short).
   */
  @Test
  void aLogsInlineBytesStayUnderTheBudgetOverTenThousandWrites() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    long budget = 4096;
    try (RafeStore store =
        h.builder(ProtocolMode.FAST).inlineThreshold(1024).inlineLogBudget(budget).build()) {
      SplittableRandom random = new SplittableRandom(16);
      // The clouds mostly hold the same log bytes (and the lingering one the previous write's):
      // one codec decodes and verifies each distinct log once instead of four times per write.
      MetadataCodec codec = new MetadataCodec();
      long most = 0;
      Version last = null;
      byte[] lastValue = null;
      for (int i = 1; i <= 10_000; i++) {
        lastValue = value(i, 1 + random.nextInt(1024));
        last = h.run(store.write(KEY, lastValue)).version();
        // Now and then a pause, so the packer's own writeM runs too, not only carried packs.
        if (i % 7 == 0) {
          h.scheduler.advance(Duration.ofSeconds(2));
        }
        for (int c = 0; c < 4; c++) {
          long inline = Logs.inlineBytes(storedLog(codec, h, c, KEY));
          most = Math.max(most, inline);
          assertThat(inline)
              .as("inline bytes on p%d after write %d", c, i)
              .isLessThanOrEqualTo(budget);
        }
        if (i % 500 == 0) {
          h.run(store.collect(KEY, RetentionPolicy.keepLast(40)));
        }
      }
      assertThat(most)
          .as("the budget was approached, so packing was needed")
          .isGreaterThan(budget / 2);
      assertThat(h.run(store.read(KEY)).version()).isEqualTo(last);
      assertThat(h.run(store.read(KEY)).value()).isEqualTo(lastValue);
      for (VersionInfo v : h.run(store.history(KEY, Optional.empty(), 100)).versions()) {
        assertThat(h.run(store.read(KEY, v.version())).info().sha256()).isEqualTo(v.sha256());
      }
    }
  }

  /**
   * Collection of versions that share a pack with kept versions keeps the pack; once every version
   * of a pack is collected, the pack is deleted; a delete removes every pack.
   */
  @Test
  void collectionKeepsAPackWhileALiveVersionNeedsItAndDeletesItAfter() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    // Packing starts once older inline values exceed 1,000 bytes: four of 300 go in one pack.
    try (RafeStore store =
        h.builder(ProtocolMode.FAST).inlineThreshold(1024).inlineLogBudget(2024).build()) {
      Map<Version, byte[]> written = new LinkedHashMap<>();
      for (int i = 1; i <= 5; i++) {
        byte[] v = value(i, 300);
        written.put(h.run(store.write(KEY, v)).version(), v);
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      MetadataLog log = storedLog(h, 0, KEY);
      LogEntry first = log.entries().get(0);
      assertThat(first.coding()).isEqualTo(LogEntry.Coding.PACKED);
      String sharedPack = first.pack().object();
      for (int i = 1; i < 4; i++) {
        assertThat(log.entries().get(i).pack().object())
            .as("v1 to v4 share a pack")
            .isEqualTo(sharedPack);
      }
      assertThat(log.entries().get(4).coding()).isEqualTo(LogEntry.Coding.INLINE);
      // Collect v1 only: v2 to v4 still need the pack.
      h.run(store.collect(KEY, RetentionPolicy.keepLast(4)));
      assertThat(dataObjects(h)).anyMatch(o -> o.endsWith(sharedPack));
      List<Version> versions = new ArrayList<>(written.keySet());
      for (int i = 1; i < versions.size(); i++) {
        assertThat(h.run(store.read(KEY, versions.get(i))).value())
            .isEqualTo(written.get(versions.get(i)));
      }
      // Collect down to the newest: the pack has no live version left and goes.
      for (int i = 6; i <= 7; i++) {
        byte[] v = value(i, 300);
        written.put(h.run(store.write(KEY, v)).version(), v);
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      h.run(store.collect(KEY, RetentionPolicy.keepLast(1)));
      assertThat(dataObjects(h)).noneMatch(o -> o.endsWith(sharedPack));
      assertThat(h.run(store.read(KEY)).value()).isEqualTo(value(7, 300));
      VerifyReport clean = h.run(store.verify(KEY));
      assertThat(clean.isClean()).as(clean.toString()).isTrue();
      // A delete removes every remaining pack.
      for (int i = 8; i <= 14; i++) {
        h.run(store.write(KEY, value(i, 300)));
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      assertThat(dataObjects(h)).isNotEmpty();
      h.run(store.delete(KEY));
      assertThat(dataObjects(h)).isEmpty();
      // Orphan collection keeps nothing it should not: nothing is left to take.
      assertThat(h.run(store.collectOrphans(KEY, Duration.ZERO)).deleted()).isEmpty();
    }
  }

  /** Orphan collection never takes a pack a log references, and takes one none does. */
  @Test
  void orphanCollectionKeepsReferencedPacksAndTakesAnUnreferencedOne() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    try (RafeStore store = packingStore(h, ProtocolMode.FAST)) {
      for (int i = 1; i <= 4; i++) {
        h.run(store.write(KEY, value(i, 300)));
      }
      // Until the pack of the newest value made ahead for a next write is stale and deleted: it
      // is named by no log, so an orphan collection with no grace would take it.
      h.scheduler.advance(Duration.ofMinutes(3));
      Set<String> before = dataObjects(h);
      assertThat(before).isNotEmpty();
      h.run(store.collectOrphans(KEY, Duration.ZERO));
      assertThat(dataObjects(h)).isEqualTo(before);
      h.run(
          h.stores
              .get(2)
              .put(ObjectKey.of("d/" + Names.encodeKey(KEY) + "/alice-0abc"), new byte[] {1}));
      h.run(store.collectOrphans(KEY, Duration.ZERO));
      assertThat(dataObjects(h)).isEqualTo(before);
    }
  }

  /**
   * Verify checks each pack once per holder, reports a lost or corrupt one, and repair restores it.
   */
  @Test
  void verifyReportsALostOrCorruptPackAndRepairRestoresIt() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    try (RafeStore store = packingStore(h, ProtocolMode.FAST)) {
      Map<Version, byte[]> written = new LinkedHashMap<>();
      for (int i = 1; i <= 5; i++) {
        byte[] v = value(i, 300);
        written.put(h.run(store.write(KEY, v)).version(), v);
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      VerifyReport clean = h.run(store.verify(KEY));
      assertThat(clean.isClean()).as(clean.toString()).isTrue();
      LogEntry packed = storedLog(h, 0, KEY).entries().get(0);
      String pack = packed.pack().object();
      int lost = Integer.parseInt(packed.holders().get(0).substring(1));
      int corrupt = Integer.parseInt(packed.holders().get(1).substring(1));
      // One holder loses the pack: reads still work from the other.
      h.run(h.stores.get(lost).delete(ObjectKey.of(pack)));
      VerifyReport broken = h.run(store.verify(KEY));
      assertThat(broken.findings())
          .extracting(VerifyReport.Finding::problem, VerifyReport.Finding::subject)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(VerifyReport.Problem.DATA_MISSING, pack));
      RepairReport fixed = h.run(store.repair(KEY));
      assertThat(fixed.isClean()).as(fixed.toString()).isTrue();
      assertThat(h.run(h.stores.get(lost).get(ObjectKey.of(pack))))
          .isEqualTo(h.run(h.stores.get(corrupt).get(ObjectKey.of(pack))));
      // The other holder's copy is corrupted: found and restored from the repaired one.
      byte[] bytes = h.run(h.stores.get(corrupt).get(ObjectKey.of(pack)));
      bytes[3] ^= 1;
      h.run(h.stores.get(corrupt).put(ObjectKey.of(pack), bytes));
      assertThat(h.run(store.verify(KEY)).findings())
          .extracting(VerifyReport.Finding::problem)
          .containsExactly(VerifyReport.Problem.DATA_CORRUPT);
      assertThat(h.run(store.repair(KEY)).isClean()).isTrue();
      assertThat(h.run(store.verify(KEY)).isClean()).isTrue();
      readAll(h, written);
    }
  }

  private static byte[] secret(int i) {
    return ("the inline secret number " + i + " of the diary, long enough to scan for windows")
        .repeat(3)
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Sealed inline values carry key shares like sealed whole values: no stored object, the logs
   * included and the packs after packing, holds any 16-byte window of a plaintext or its hash;
   * every version reads back.
   */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void sealedInlineValuesLeaveNoPlaintextInAnyObjectLogsIncluded(ProtocolMode mode)
      throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    List<byte[]> written = new ArrayList<>();
    try (RafeStore store =
        h.builder(mode).encryptValues(true).inlineThreshold(1024).inlineLogBudget(1024).build()) {
      for (int i = 0; i < 5; i++) {
        WriteReceipt r = h.run(store.write(KEY, secret(i)));
        written.add(secret(i));
        assertThat(r.info().dataClouds()).isEmpty();
        assertThat(h.run(store.read(KEY)).value()).isEqualTo(secret(i));
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      MetadataLog log = storedLog(h, 0, KEY);
      assertThat(log.entries().get(0).coding()).isEqualTo(LogEntry.Coding.PACKED);
      assertThat(log.entries().get(0).isSealed()).isTrue();
      assertThat(log.entries().get(4).coding()).isEqualTo(LogEntry.Coding.INLINE);
      for (MemoryCloud m : h.stores) {
        for (ObjectInfo info : h.run(m.list(""))) {
          byte[] stored = h.run(m.get(info.key()));
          for (byte[] plain : written) {
            for (int at = 0; at + 16 <= plain.length; at += 8) {
              byte[] window = Arrays.copyOfRange(plain, at, at + 16);
              assertThat(ProtocolTest.indexOf(stored, window))
                  .as("plaintext at %d in %s on %s", at, info.key(), m.id())
                  .isEqualTo(-1);
            }
            assertThat(ProtocolTest.indexOf(stored, Sha256.hash(plain))).isEqualTo(-1);
          }
        }
      }
      List<VersionInfo> versions = h.run(store.history(KEY, Optional.empty(), 10)).versions();
      assertThat(versions).hasSize(5);
      for (int i = 0; i < 5; i++) {
        assertThat(h.run(store.read(KEY, versions.get(4 - i).version())).value())
            .isEqualTo(secret(i));
      }
      try (RafeStore reader = h.client(ProtocolMode.PAPER)) {
        assertThat(h.run(reader.read(KEY, versions.get(4).version())).value()).isEqualTo(secret(0));
      }
    }
  }

  /**
   * The writer crashes after a pack was uploaded, before any log named it: readers see the inline
   * values; a restarted writer (new incarnation) writes on and packs them itself; the orphaned pack
   * is taken by orphan collection, and verify is clean.
   */
  @Test
  void aCrashAfterThePackUploadLeavesAnOrphanAndNothingElse() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    Map<Version, byte[]> written = new LinkedHashMap<>();
    RafeStore first = packingStore(h, ProtocolMode.FAST);
    for (int i = 1; i <= 3; i++) {
      byte[] v = value(i, 300);
      written.put(h.run(first.write(KEY, v)).version(), v);
    }
    // Uploads land (f+1 acks), but the commit delay has not passed: crash. The writes came in a
    // burst, so the last one's value was packed ahead and no log names that pack yet.
    h.scheduler.advance(Duration.ofMillis(200));
    assertThat(dataObjects(h)).isNotEmpty();
    first.close();
    Set<String> named = new HashSet<>();
    for (int c = 0; c < 4; c++) {
      for (LogEntry e : storedLog(h, c, KEY).entries()) {
        if (e.coding() == LogEntry.Coding.PACKED) {
          named.add(e.pack().object());
        }
      }
    }
    assertThat(dataObjects(h))
        .as("an uploaded pack that no log names: an orphan")
        .anyMatch(o -> named.stream().noneMatch(o::endsWith));
    assertThat(storedLog(h, 0, KEY).entries().get(2).coding())
        .as("the newest value is inline")
        .isEqualTo(LogEntry.Coding.INLINE);
    readAll(h, written);
    try (RafeStore restarted = packingStore(h, ProtocolMode.FAST)) {
      for (int i = 4; i <= 6; i++) {
        byte[] v = value(i, 300);
        written.put(h.run(restarted.write(KEY, v)).version(), v);
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      readAll(h, written);
      h.run(restarted.collectOrphans(KEY, Duration.ZERO));
      VerifyReport r = h.run(restarted.verify(KEY));
      assertThat(r.isClean()).as(r.toString()).isTrue();
      assertThat(r.extraObjects()).as("the crashed writer's pack was taken").isEmpty();
      readAll(h, written);
    }
  }

  /**
   * The writer crashes during the packer's writeM, which reached one cloud only (p0): a reader that
   * hears p0 reads the packed form, others the inline one, all the same bytes; a restarted writer
   * writes on (its log may carry either form); every version reads back exactly, before and after,
   * and repair leaves the key clean.
   */
  @Test
  void aCrashDuringThePacksWriteMOnOneCloudLosesNothing() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    Map<Version, byte[]> written = new LinkedHashMap<>();
    RafeStore first = packingStore(h, ProtocolMode.FAST);
    for (int i = 1; i <= 3; i++) {
      byte[] v = value(i, 300);
      written.put(h.run(first.write(KEY, v)).version(), v);
      if (i < 3) {
        // No burst, and pauses longer than a pack stays fresh (half the operation timeout), so no
        // value is packed ahead for the next write to carry: each older value is packed after the
        // next write, and the packer writes the log itself (v1's pack lands everywhere in this
        // pause).
        h.scheduler.advance(Duration.ofMinutes(3));
      }
    }
    // v2's pack uploaded (to the data clouds); then every metadata put but p0's fails.
    h.scheduler.advance(Duration.ofMillis(200));
    for (int i = 1; i < 4; i++) {
      h.clouds.get(i).faulty().affecting(FaultyCloud.Operation.PUT).crash();
    }
    h.scheduler.advance(Duration.ofSeconds(2));
    first.close();
    for (int i = 1; i < 4; i++) {
      h.clouds.get(i).faulty().heal().affectingAll();
    }
    assertThat(storedLog(h, 0, KEY).entries().get(1).coding()).isEqualTo(LogEntry.Coding.PACKED);
    assertThat(storedLog(h, 1, KEY).entries().get(1).coding()).isEqualTo(LogEntry.Coding.INLINE);
    readAll(h, written);
    try (RafeStore restarted = packingStore(h, ProtocolMode.PAPER)) {
      for (int i = 4; i <= 6; i++) {
        byte[] v = value(i, 300);
        written.put(h.run(restarted.write(KEY, v)).version(), v);
        readAll(h, written);
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      readAll(h, written);
      RepairReport repaired = h.run(restarted.repair(KEY));
      assertThat(repaired.isClean()).as(repaired.toString()).isTrue();
      readAll(h, written);
    }
  }

  /** {@link #readAll} of UTF-8 strings written under {@code key}. */
  static void readAllText(Harness h, Map<Version, String> written, String key) throws Exception {
    Map<Version, byte[]> bytes = new LinkedHashMap<>();
    written.forEach((v, s) -> bytes.put(v, s.getBytes(StandardCharsets.UTF_8)));
    readAll(h, bytes, key);
  }

  /** Readers hearing each possible n - f clouds (f = 1) read every version's exact bytes. */
  static void readAll(Harness h, Map<Version, byte[]> written) throws Exception {
    readAll(h, written, KEY);
  }

  static void readAll(Harness h, Map<Version, byte[]> written, String key) throws Exception {
    for (int slow = 0; slow < h.clouds.size(); slow++) {
      h.clouds.get(slow).faulty().hang();
      try (RafeStore reader =
          h.builder(ProtocolMode.PAPER)
              .inlineThreshold(0)
              .operationTimeout(Duration.ofMinutes(1))
              .build()) {
        for (Map.Entry<Version, byte[]> e : written.entrySet()) {
          assertThat(h.run(reader.read(key, e.getKey())).value())
              .as("version %s without p%d", e.getKey(), slow)
              .isEqualTo(e.getValue());
        }
      } finally {
        h.clouds.get(slow).faulty().heal();
      }
    }
  }

  /**
   * Logs from before inline values (replicas only, written with inline off) are read by a client
   * that writes inline; its log then mixes replicas and inline entries, and a client with inline
   * off reads and extends that mixed log.
   */
  @Test
  void oldAndNewEntriesMixInOneLog() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 20, 30, 40);
    Map<Version, byte[]> written = new LinkedHashMap<>();
    try (RafeStore old = h.builder(ProtocolMode.PAPER).inlineThreshold(0).build()) {
      for (int i = 1; i <= 2; i++) {
        byte[] v = value(i, 300);
        written.put(h.run(old.write(KEY, v)).version(), v);
      }
    }
    try (RafeStore fresh = h.inline(ProtocolMode.PAPER).build()) {
      for (int i = 3; i <= 4; i++) {
        byte[] v = value(i, 300);
        written.put(h.run(fresh.write(KEY, v)).version(), v);
      }
    }
    assertThat(storedLog(h, 0, KEY).entries())
        .extracting(LogEntry::coding)
        .containsExactly(
            LogEntry.Coding.REPLICA,
            LogEntry.Coding.REPLICA,
            LogEntry.Coding.INLINE,
            LogEntry.Coding.INLINE);
    try (RafeStore old = h.builder(ProtocolMode.PAPER).inlineThreshold(0).build()) {
      byte[] v = value(5, 300);
      written.put(h.run(old.write(KEY, v)).version(), v);
      for (Map.Entry<Version, byte[]> e : written.entrySet()) {
        assertThat(h.run(old.read(KEY, e.getKey())).value()).isEqualTo(e.getValue());
      }
    }
    readAll(h, written);
  }

  /** DepSky modes never write inline; a zero threshold turns inline off in the RafeStore modes. */
  @Test
  void depSkyModesAndAZeroThresholdWriteWholeValues() throws Exception {
    for (ProtocolMode mode : ProtocolMode.values()) {
      Harness h = new Harness(1, 4);
      boolean rafe = mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST;
      try (RafeStore store = h.inline(mode).build()) {
        WriteReceipt r = h.run(store.write(KEY, value(1, 100)));
        assertThat(r.info().dataClouds().isEmpty()).as(mode.toString()).isEqualTo(rafe);
      }
      try (RafeStore store = h.builder(mode).inlineThreshold(0).build()) {
        WriteReceipt r = h.run(store.write(KEY, value(2, 100)));
        assertThat(r.info().dataClouds()).as(mode.toString()).isNotEmpty();
      }
    }
  }

  /** Values above the threshold are written whole; metadata-only clouds hold no pack. */
  @Test
  void valuesAboveTheThresholdAreWholeAndPacksGoToDataCloudsOnly() throws Exception {
    Harness h = new Harness(1, 5).rtts(10, 20, 30, 40, 50);
    try (RafeStore store =
        h.builder(
                ProtocolMode.PAPER,
                (i, c) -> i == 0 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA)
            .inlineThreshold(1024)
            .inlineLogBudget(1024)
            .build()) {
      WriteReceipt big = h.run(store.write(KEY, value(1, 1025)));
      assertThat(big.info().dataClouds()).hasSize(2);
      for (int i = 2; i <= 5; i++) {
        h.run(store.write(KEY, value(i, 200)));
      }
      h.scheduler.advance(Duration.ofSeconds(5));
      assertThat(h.run(h.stores.get(0).list("d/"))).isEmpty();
      assertThat(storedLog(h, 1, KEY).entries().get(1).coding()).isEqualTo(LogEntry.Coding.PACKED);
    }
  }
}
