package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudFault;
import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.HistoryPage;
import io.rafestore.KeyNotFoundException;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.VersionNotFoundException;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ProtocolTest {
  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The paper's Table 1 RTTs, in ms, for p0..p3. */
  static final long[] TABLE1 = Harness.table1();

  /** Table 2, Configuration 1: data p0, p1; extra p2; metadata only p3. */
  static RafeStore config1(Harness h, ProtocolMode mode) {
    return h.build(
        mode,
        (i, c) -> i == 3 ? CloudRole.METADATA_ONLY : CloudRole.DATA_AND_METADATA,
        "alice",
        Harness.ALICE,
        List.of(),
        List.of());
  }

  @ParameterizedTest
  @EnumSource(ProtocolMode.class)
  void writeReadHistoryDelete(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    try (RafeStore store = h.client(mode)) {
      WriteReceipt v1 = h.run(store.write("topic", utf8("hello")));
      WriteReceipt v2 = h.run(store.write("topic", utf8("world")));
      assertThat(v2.version()).isGreaterThan(v1.version());
      assertThat(h.run(store.read("topic")).utf8()).isEqualTo("world");
      assertThat(h.run(store.read("topic", v1.version())).utf8()).isEqualTo("hello");

      HistoryPage first = h.run(store.history("topic", Optional.empty(), 1));
      assertThat(first.versions()).extracting(VersionInfo::version).containsExactly(v2.version());
      HistoryPage second = h.run(store.history("topic", first.nextBefore(), 1));
      assertThat(second.versions()).extracting(VersionInfo::version).containsExactly(v1.version());
      assertThat(second.nextBefore()).isEmpty();

      h.run(store.delete("topic"));
      assertThatThrownBy(() -> h.run(store.read("topic")))
          .hasCauseInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("deleted");
      assertThatThrownBy(() -> h.run(store.read("topic", v1.version())))
          .hasCauseInstanceOf(VersionNotFoundException.class);
      assertThat(h.run(store.history("topic", Optional.empty(), 10)).versions()).isEmpty();
      // Data objects are gone from every cloud; only the tombstone logs remain.
      for (var m : h.stores) {
        assertThat(h.run(m.list("d/"))).isEmpty();
      }
      WriteReceipt v3 = h.run(store.write("topic", utf8("again")));
      assertThat(v3.version()).isGreaterThan(v2.version());
      assertThat(h.run(store.read("topic")).utf8()).isEqualTo("again");
      assertThat(h.run(store.history("topic", Optional.empty(), 10)).versions()).hasSize(1);
    }
  }

  @Test
  void missingKeyAndVersionAreClearErrors() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.client(ProtocolMode.PAPER)) {
      assertThatThrownBy(() -> h.run(store.read("nothing")))
          .hasCauseInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("never written");
      h.run(store.write("k", utf8("v")));
      assertThatThrownBy(() -> h.run(store.read("k", new Version(77, "alice"))))
          .hasCauseInstanceOf(VersionNotFoundException.class)
          .hasMessageContaining("77@alice");
    }
  }

  @Test
  void emptyAndBinaryValuesRoundTrip() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = h.client(ProtocolMode.FAST)) {
      h.run(store.write("empty", new byte[0]));
      assertThat(h.run(store.read("empty")).value()).isEmpty();
      byte[] all = new byte[256];
      for (int i = 0; i < 256; i++) {
        all[i] = (byte) i;
      }
      h.run(store.write("ключ/with spaces?&", all));
      assertThat(h.run(store.read("ключ/with spaces?&")).value()).isEqualTo(all);
    }
  }

  @Test
  void configurationOneWithTable1ContactsOnlyFPlusOneDataClouds() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    try (RafeStore store = config1(h, ProtocolMode.PAPER)) {
      for (int i = 0; i < 20; i++) {
        WriteReceipt r = h.run(store.write("feed", utf8("item " + i)));
        assertThat(r.onlyFPlusOneDataClouds()).isTrue();
        assertThat(r.dataCloudsContacted()).containsExactly("p0", "p1");
        assertThat(r.writeDfUsed()).isFalse();
      }
      Map<String, CloudStats> stats = store.stats();
      // p2 (the extra) and p3 (metadata only) received exactly one put per write: metadata.
      assertThat(stats.get("p2").puts()).isEqualTo(20);
      assertThat(stats.get("p3").puts()).isEqualTo(20);
      assertThat(stats.get("p0").puts()).isEqualTo(40);
      assertThat(stats.get("p1").puts()).isEqualTo(40);
      assertThat(stats.get("p2").bytesUp()).isLessThan(stats.get("p1").bytesUp());
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void slowP1TriggersWriteDfAndTheWriteCompletes(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(1).behave(Behaviour.SLOW);
    try (RafeStore store = config1(h, mode)) {
      WriteReceipt r = h.run(store.write("feed", utf8("slow p1")));
      assertThat(r.writeDfUsed()).isTrue();
      assertThat(r.dataCloudsContacted()).containsExactly("p0", "p1", "p2");
      assertThat(r.info().dataClouds()).containsExactly("p0", "p2");
      assertThat(h.run(store.read("feed")).utf8()).isEqualTo("slow p1");
      // The useless upload to p1 was cancelled and counted.
      assertThat(store.stats().get("p1").cancelled()).isPositive();
    }
  }

  @Test
  void fastModeSkipsReadMForTheOnlyWriterAndStaysCorrect() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    try (RafeStore fast = config1(h, ProtocolMode.FAST);
        RafeStore paper = config1(new Harness(1, 4).rtts(TABLE1), ProtocolMode.PAPER)) {
      WriteReceipt first = h.run(fast.write("k", utf8("1")));
      assertThat(first.readMSkipped()).isFalse();
      WriteReceipt second = h.run(fast.write("k", utf8("2")));
      assertThat(second.readMSkipped()).isTrue();
      // Skipping readM must not make the crucial check fire early: still only f+1 data clouds.
      assertThat(second.dataCloudsContacted()).containsExactly("p0", "p1");
      assertThat(second.writeDfUsed()).isFalse();
      assertThat(second.version().timestamp()).isEqualTo(first.version().timestamp() + 1);
      assertThat(h.run(fast.read("k")).utf8()).isEqualTo("2");
      assertThat(second.latency()).isLessThan(first.latency());
      assertThat(paper).isNotNull();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void eightWritersTwoHundredVersionsEachListedOnceInOneOrder(ProtocolMode mode) throws Exception {
    concurrentWriters(mode, 8, 200);
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"DEPSKY_A", "DEPSKY_CA"})
  void baselinesKeepEveryConcurrentVersionToo(ProtocolMode mode) throws Exception {
    concurrentWriters(mode, 4, 25);
  }

  private void concurrentWriters(ProtocolMode mode, int writers, int perWriter) throws Exception {
    Harness h = new Harness(1, 4).rtts(20, 35, 50, 80);
    List<String> ids = new ArrayList<>();
    List<java.security.KeyPair> keys = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      ids.add("w" + w);
      keys.add(io.rafestore.SigningKeys.generate());
    }
    List<RafeStore> clients = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      clients.add(
          h.build(mode, (i, c) -> CloudRole.DATA_AND_METADATA, ids.get(w), keys.get(w), ids, keys));
    }
    // Each writer appends its versions one after another; the eight run concurrently, their
    // phases interleaving on the shared clouds.
    List<java.util.concurrent.CompletableFuture<Void>> chains = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      RafeStore c = clients.get(w);
      String id = ids.get(w);
      java.util.concurrent.CompletableFuture<Void> chain =
          java.util.concurrent.CompletableFuture.completedFuture(null);
      for (int i = 0; i < perWriter; i++) {
        String post = id + "#" + i;
        chain = chain.thenCompose(x -> c.write("thread", utf8(post)).thenApply(r -> null));
      }
      chains.add(chain);
    }
    h.run(
        java.util.concurrent.CompletableFuture.allOf(
            chains.toArray(new java.util.concurrent.CompletableFuture<?>[0])));

    List<Version> reference = null;
    for (RafeStore reader :
        List.of(clients.get(0), clients.get(writers / 2), clients.get(writers - 1))) {
      List<Version> all = new ArrayList<>();
      Optional<Version> before = Optional.empty();
      do {
        HistoryPage page = h.run(reader.history("thread", before, 300));
        page.versions().forEach(v -> all.add(v.version()));
        before = page.nextBefore();
      } while (before.isPresent());
      assertThat(all).hasSize(writers * perWriter).doesNotHaveDuplicates();
      assertThat(all).isSortedAccordingTo(java.util.Comparator.reverseOrder());
      if (reference == null) {
        reference = all;
      } else {
        assertThat(all).isEqualTo(reference);
      }
    }
    // Each writer's own posts appear in the order it wrote them.
    for (String id : ids) {
      List<Version> mine = reference.stream().filter(v -> v.writer().equals(id)).toList();
      assertThat(mine).hasSize(perWriter);
    }
    StoredValue newest = h.run(clients.get(writers - 1).read("thread"));
    assertThat(newest.version()).isEqualTo(reference.get(0));
  }

  @Test
  void faultsAreReportedToTheListener() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(0).behave(Behaviour.CORRUPT);
    List<CloudFault> seen = new CopyOnWriteArrayList<>();
    RafeStore store =
        h.builder(ProtocolMode.PAPER)
            .listener(
                new RafeStoreListener() {
                  @Override
                  public void cloudFault(String key, CloudFault fault) {
                    seen.add(fault);
                  }
                })
            .build();
    h.run(store.write("k", utf8("value")));
    StoredValue v = h.run(store.read("k"));
    assertThat(v.utf8()).isEqualTo("value");
    assertThat(v.servedBy()).isNotEqualTo("p0");
    assertThat(seen)
        .anySatisfy(
            fault -> {
              assertThat(fault.cloudId()).isEqualTo("p0");
              assertThat(fault.kind())
                  .isIn(
                      CloudFault.Kind.CORRUPT_DATA,
                      CloudFault.Kind.MALFORMED_METADATA,
                      CloudFault.Kind.BAD_SIGNATURE);
            });
  }

  @Test
  void depSkyAWritesToAllCloudsAndReadsTheFirstValidReply() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(0).behave(Behaviour.CORRUPT);
    try (RafeStore store = config1(h, ProtocolMode.DEPSKY_A)) {
      WriteReceipt r = h.run(store.write("k", utf8("depsky")));
      assertThat(r.dataCloudsContacted()).containsExactly("p0", "p1", "p2", "p3");
      assertThat(r.onlyFPlusOneDataClouds()).isFalse();
      assertThat(r.info().dataClouds()).hasSize(3);
      StoredValue v = h.run(store.read("k"));
      assertThat(v.utf8()).isEqualTo("depsky");
      // The surplus upload (to the slowest cloud) was cancelled once n - f acknowledged.
      assertThat(store.stats().get("p3").cancelled()).isPositive();
    }
  }

  @Test
  void anticipationBeatsDepSkyAOnTable1() throws Exception {
    Harness a = new Harness(1, 4).rtts(TABLE1);
    Harness b = new Harness(1, 4).rtts(TABLE1);
    try (RafeStore paper = config1(a, ProtocolMode.PAPER);
        RafeStore depsky = config1(b, ProtocolMode.DEPSKY_A)) {
      WriteReceipt rp = a.run(paper.write("k", utf8("x")));
      WriteReceipt rd = b.run(depsky.write("k", utf8("x")));
      // PAPER: max(p1 data 315, p0 5 + readM 750) + writeM 750 = 1505 ms;
      // DepSky-A: readM 750 + data 750 + writeM 750 = 2250 ms.
      assertThat(rp.latency().toMillis()).isEqualTo(1505);
      assertThat(rd.latency().toMillis()).isEqualTo(2250);
    }
  }

  @Test
  void uploadsThatBeatTheirPredictionStartReadMAtOnce() throws Exception {
    // Nothing measured yet, so an 8 MB upload is predicted at the model's default bandwidth
    // (100 Mbit/s: about 670 ms) and readM is delayed to end with it. The clouds are on a fast
    // LAN (5 ms, 10 Gbit/s), so writeDo is acknowledged after about 12 ms; readM must start then,
    // not when the delay runs out (a 1 GiB stream to local disks once idled 80 s this way).
    Harness h = new Harness(1, 4).rtts(5, 5, 5, 5);
    for (TestCloud c : h.clouds) {
      c.bandwidth(10_000_000_000L);
    }
    try (RafeStore store = h.client(ProtocolMode.FAST)) {
      byte[] value = new byte[8 << 20];
      WriteReceipt r = h.run(store.write("big", value));
      assertThat(r.latency()).isLessThan(java.time.Duration.ofMillis(100));
      assertThat(h.run(store.read("big")).value()).isEqualTo(value);
    }
  }

  @Test
  void depSkyCaKeepsPlaintextAndKeyFromEveryCloud() throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    byte[] secret = utf8("the secret recipe: " + "x".repeat(2000) + " END");
    try (RafeStore store = config1(h, ProtocolMode.DEPSKY_CA)) {
      WriteReceipt r = h.run(store.write("recipe", secret));
      assertThat(r.dataCloudsContacted()).hasSize(4);
      assertThat(h.run(store.read("recipe")).value()).isEqualTo(secret);
      // No single stored object (and so no f = 1 cloud) holds any 16-byte run of the plaintext.
      for (var m : h.stores) {
        for (var info : h.run(m.list(""))) {
          byte[] stored = h.run(m.get(info.key()));
          for (int at = 0; at + 16 <= secret.length; at += 8) {
            byte[] window = java.util.Arrays.copyOfRange(secret, at, at + 16);
            assertThat(indexOf(stored, window)).as("%s in %s", at, info.key()).isEqualTo(-1);
          }
          // Nor the plaintext's hash, which would let a cloud confirm a guessed value.
          assertThat(indexOf(stored, io.rafestore.internal.codec.Sha256.hash(secret)))
              .as("plaintext hash in %s", info.key())
              .isEqualTo(-1);
        }
      }
      // Losing f clouds' pieces still reads; a corrupt piece is skipped by its hash.
      h.clouds.get(0).behave(Behaviour.CORRUPT);
      assertThat(h.run(store.read("recipe")).value()).isEqualTo(secret);
    }
  }

  @Test
  void depSkyCaReadsSurvivePiecesArrivingDuringDecode() throws Exception {
    // Real threads, no latency: the last pieces often arrive while the first k are decoding,
    // which once ended such reads with a spurious "fewer than k valid pieces".
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .mode(ProtocolMode.DEPSKY_CA)
            .writer("alice", Harness.ALICE);
    for (int i = 0; i < 4; i++) {
      b.cloud(new io.rafestore.clouds.MemoryCloud("p" + i));
    }
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    try (RafeStore store = b.executor(pool).build()) {
      byte[] value = new byte[256 * 1024];
      new java.util.Random(3).nextBytes(value);
      store.blocking().write("k", value);
      for (int i = 0; i < 100; i++) {
        assertThat(store.blocking().read("k").value()).isEqualTo(value);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Test
  void operationTimeoutBoundsAStuckOperation() throws Exception {
    Harness h = new Harness(1, 4);
    for (int i = 0; i < 2; i++) {
      h.clouds.get(i).behave(Behaviour.HANG);
    }
    RafeStore store =
        h.builder(ProtocolMode.PAPER).operationTimeout(java.time.Duration.ofSeconds(3)).build();
    assertThatThrownBy(() -> h.run(store.write("k", utf8("v"))))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("operation timeout");
    assertThat(h.scheduler.elapsed()).isLessThan(java.time.Duration.ofSeconds(4));
  }
}
