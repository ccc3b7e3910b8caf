package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.WriterDiscovery;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * readM in {@link WriterDiscovery#LISTING} mode against clouds that lie in their listings: a cloud
 * that hides writers, lists invented ones (trusted ids that never wrote the key, or thousands of
 * names nobody trusts), or lists honestly and serves stale or forged logs. For every placement of
 * up to f such clouds (f = 1, n = 4 and f = 2, n = 7) the view equals the one an honest deployment
 * gives, and each cloud's requests stay within the bound design.md states ("readM with many
 * writers"): at most {@code MAX_PAGES} listing pages, one GET per writer the read expected plus one
 * per trusted writer the cloud itself listed (or, past the pages, per trusted writer), and no
 * request to any other cloud for a name one cloud listed; untrusted names are never fetched.
 */
class WriterListingTest {
  static final String KEY = "forum/thread-7";
  static final int W = 20;
  static final List<String> IDS = new ArrayList<>();
  static final List<KeyPair> KEYS = new ArrayList<>();

  static {
    for (int i = 0; i < W; i++) {
      IDS.add(String.format("w%02d", i));
      KEYS.add(SigningKeys.generate());
    }
  }

  /** The writers of {@link #KEY} in these tests (their logs exist); the others never wrote it. */
  static final int[] AUTHORS = {3, 11};

  /** How a {@link Liar} lies. */
  enum Lie {
    /** Its listing omits every author's log (it still serves them if asked). */
    HIDE,
    /** Its listing names every trusted writer (most never wrote the key). */
    INVENT_TRUSTED,
    /** Its listing names 5,000 untrusted writers, sorted before the trusted ones, and every one. */
    INVENT_MANY,
    /** Honest listing, stale logs (the version put before the current one). */
    STALE,
    /** Honest listing, logs re-signed by an untrusted key. */
    FORGED,
    /** Hides the authors and serves stale logs when asked. */
    HIDE_AND_STALE
  }

  /**
   * A cloud as the reader sees it: counts its metadata requests and the writers it was asked for,
   * and lies in its listing as told. Outside the {@link TestCloud} (so its WAN delay applies).
   */
  static final class Liar extends ForwardingCloud {
    final TestCloud inner;
    volatile Lie lie;
    final AtomicInteger lists = new AtomicInteger();
    final AtomicInteger gets = new AtomicInteger();
    final Set<String> asked = ConcurrentHashMap.newKeySet();

    Liar(TestCloud inner) {
      super(inner);
      this.inner = inner;
    }

    void reset() {
      lists.set(0);
      gets.set(0);
      asked.clear();
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<io.rafestore.spi.ByteRange> r) {
      if (key.value().startsWith("m/")) {
        gets.incrementAndGet();
        asked.add(key.value().substring(key.value().lastIndexOf('/') + 1));
      }
      return super.get(key, r);
    }

    @Override
    public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
      lists.incrementAndGet();
      Lie l = lie;
      if (l == null) {
        return super.list(prefix, startAfter, limit);
      }
      return super.list(prefix)
          .thenApply(
              all -> {
                TreeMap<String, ObjectInfo> names = new TreeMap<>();
                for (ObjectInfo o : all) {
                  String writer = o.key().value().substring(prefix.length());
                  boolean author =
                      writer.equals(IDS.get(AUTHORS[0])) || writer.equals(IDS.get(AUTHORS[1]));
                  if ((l == Lie.HIDE || l == Lie.HIDE_AND_STALE) && author) {
                    continue;
                  }
                  names.put(o.key().value(), o);
                }
                if (l == Lie.INVENT_TRUSTED || l == Lie.INVENT_MANY) {
                  for (String id : IDS) {
                    names.putIfAbsent(prefix + id, info(prefix + id));
                  }
                }
                if (l == Lie.INVENT_MANY) {
                  for (int i = 0; i < 5000; i++) {
                    String n = prefix + String.format("a%05d", i);
                    names.put(n, info(n));
                  }
                  // And names that are no writer's log at all.
                  names.put(prefix + "x/y", info(prefix + "x/y"));
                }
                return ListPage.of(new ArrayList<>(names.values()), prefix, startAfter, limit);
              });
    }

    private static ObjectInfo info(String name) {
      return new ObjectInfo(ObjectKey.of(name), 100);
    }

    void behave(Lie l, byte[] forgery) {
      this.lie = l;
      java.util.function.Predicate<ObjectKey> meta = k -> k.value().startsWith("m/");
      switch (l) {
        case STALE, HIDE_AND_STALE ->
            inner.byzantine().behave(ByzantineCloud.Behaviour.STALE, meta);
        case FORGED -> inner.byzantine().forge(b -> forgery.clone(), meta);
        default -> inner.byzantine().honest();
      }
    }
  }

  static Harness harness(int f) {
    int n = 3 * f + 1;
    Harness h = new Harness(f, n);
    long[] rtt = new long[n];
    for (int i = 0; i < n; i++) {
      rtt[i] = 10 + 40L * i;
    }
    return h.rtts(rtt);
  }

  static RafeStore.Builder client(
      Harness h, List<? extends CloudDriver> clouds, WriterDiscovery d) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(h.f)
            .mode(ProtocolMode.PAPER)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .inlineThreshold(0)
            .writerDiscovery(d);
    for (int i = 0; i < clouds.size(); i++) {
      b.cloud(clouds.get(i), CloudRole.DATA_AND_METADATA, h.clouds.get(i).rtt());
    }
    for (int i = 0; i < W; i++) {
      b.trustWriter(IDS.get(i), KEYS.get(i).getPublic());
    }
    return b;
  }

  static RafeStore writer(Harness h, int i) {
    return client(h, h.clouds, WriterDiscovery.AUTO).writer(IDS.get(i), KEYS.get(i)).build();
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Two authors write {@link #KEY} twice each, alternately; a third writer writes another key; the
   * last write misses cloud {@code lagging} (down while it ran), so only n - f clouds hold it.
   */
  static Version history(Harness h, int lagging) throws Exception {
    try (RafeStore a = writer(h, AUTHORS[0]);
        RafeStore b = writer(h, AUTHORS[1]);
        RafeStore c = writer(h, 7)) {
      h.run(a.write(KEY, bytes("a1")));
      h.run(b.write(KEY, bytes("b1")));
      h.run(c.write("other", bytes("c1")));
      h.run(a.write(KEY, bytes("a2")));
      h.clouds.get(lagging).behave(TestCloud.Behaviour.CRASH);
      Version last = h.run(b.write(KEY, bytes("b2"))).version();
      h.scheduler.advance(Duration.ofMinutes(1));
      h.clouds.get(lagging).behave(TestCloud.Behaviour.CORRECT);
      return last;
    }
  }

  /** What readM decided, in a form two views can be compared by. */
  static Map<String, MetadataLog> decided(View v) {
    return new TreeMap<>(v.logs);
  }

  static Stream<Arguments> matrix() {
    List<Arguments> out = new ArrayList<>();
    for (int f = 1; f <= 2; f++) {
      int n = 3 * f + 1;
      for (List<Integer> placement : ByzantineMatrixTest.subsets(n, f)) {
        for (Lie lie : Lie.values()) {
          out.add(Arguments.of(f, placement, lie));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "f={0} lying={1} {2}")
  @MethodSource("matrix")
  void aLyingListingChangesNeitherTheResultNorTheCostBeyondTheBound(
      int f, List<Integer> placement, Lie lie) throws Exception {
    Harness h = harness(f);
    int n = 3 * f + 1;
    // The last write misses the first correct cloud, so n - f - |placement| correct clouds hold it.
    int lagging = 0;
    while (placement.contains(lagging)) {
      lagging++;
    }
    Version last = history(h, lagging);
    View truth;
    try (RafeStore honest = client(h, h.clouds, WriterDiscovery.PER_WRITER).build()) {
      truth = h.run(MetadataRead.run(new Context(Harness.settings(honest)), KEY));
    }
    assertThat(truth.visible.get(0).version()).isEqualTo(last);
    assertThat(truth.logs.keySet())
        .containsExactlyInAnyOrder(IDS.get(AUTHORS[0]), IDS.get(AUTHORS[1]));

    List<Liar> liars = new ArrayList<>();
    for (TestCloud c : h.clouds) {
      liars.add(new Liar(c));
    }
    byte[] forgery =
        new MetadataCodec()
            .encode(
                new MetadataLog(
                    KEY,
                    IDS.get(AUTHORS[0]),
                    1_000_000,
                    0,
                    List.of(LogEntry.replica(999, 0, "d/forged", 5, new byte[32], List.of("p0")))),
                Harness.MALLORY.getPrivate());
    for (int i : placement) {
      liars.get(i).behave(lie, forgery);
    }
    try (RafeStore reader = client(h, liars, WriterDiscovery.LISTING).build()) {
      Context ctx = new Context(Harness.settings(reader));
      // Twice: cold (nothing expected, listing then GETs) and warm (the authors fetched at once).
      for (int round = 0; round < 2; round++) {
        List<String> guesses = ctx.writers.guesses(KEY, null);
        liars.forEach(Liar::reset);
        View view = h.run(MetadataRead.run(ctx, KEY));
        h.scheduler.runUntilIdle();
        assertThat(decided(view)).as("round %d", round).isEqualTo(decided(truth));
        assertThat(view.visible.get(0).version()).isEqualTo(last);
        for (int i = 0; i < n; i++) {
          Liar c = liars.get(i);
          assertThat(c.lists.get()).as("listing pages of p%d", i).isBetween(1, 4);
          assertThat(c.asked).as("writers asked of p%d", i).allMatch(IDS::contains);
          if (placement.contains(i)) {
            // One GET per trusted writer at most, each once.
            assertThat(c.gets.get()).as("GETs of lying p%d", i).isLessThanOrEqualTo(W);
            assertThat(c.gets.get()).isEqualTo(c.asked.size());
          } else {
            // A correct cloud is asked for what the read expected, what it lists itself, and at
            // most ANTICIPATED writers the first listing to arrive named: another cloud's
            // invented names cost it at most that many GETs.
            Set<String> extra = new java.util.HashSet<>(c.asked);
            extra.removeAll(guesses);
            extra.remove(IDS.get(AUTHORS[0]));
            extra.remove(IDS.get(AUTHORS[1]));
            assertThat(extra)
                .as("writers asked of correct p%d beyond its own listing", i)
                .hasSizeLessThanOrEqualTo(MetadataRead.ANTICIPATED);
            if (lie != Lie.INVENT_TRUSTED && lie != Lie.INVENT_MANY) {
              assertThat(extra).isEmpty();
            }
            assertThat(c.gets.get()).isEqualTo(c.asked.size());
          }
        }
        if (round == 1) {
          // Warm: the authors were fetched with the listing.
          assertThat(guesses).containsExactlyInAnyOrder(IDS.get(AUTHORS[0]), IDS.get(AUTHORS[1]));
        }
      }
    }
  }

  /**
   * The quorum that matters: the newest log is on n - f clouds, one of which (the fastest) hides
   * its writer from its listing, and the next fastest correct cloud lags (does not hold it); only
   * the third cloud of the reader's quorum has it, and the read must still find it.
   */
  @Test
  void aWriterHiddenByTheFastestCloudIsFoundOnTheOneCorrectHolderOfTheQuorum() throws Exception {
    Harness h = new Harness(1, 4).rtts(5, 1200, 10, 300);
    Version last = history(h, 2);
    List<Liar> liars = new ArrayList<>();
    for (TestCloud c : h.clouds) {
      liars.add(new Liar(c));
    }
    liars.get(0).behave(Lie.HIDE, null);
    try (RafeStore reader = client(h, liars, WriterDiscovery.LISTING).build()) {
      StoredValue v = h.run(reader.read(KEY));
      assertThat(v.version()).isEqualTo(last);
      assertThat(v.value()).isEqualTo(bytes("b2"));
      // p0 was asked for no author (it listed none), yet the read found the newest.
      assertThat(liars.get(0).asked).doesNotContain(IDS.get(AUTHORS[1]));
    }
  }

  /** Invented untrusted names are never fetched, and paging stops at {@code MAX_PAGES}. */
  @Test
  void thousandsOfInventedNamesCostAtMostFourPagesAndOneGetPerTrustedWriter() throws Exception {
    Harness h = harness(1);
    history(h, 1);
    List<Liar> liars = new ArrayList<>();
    for (TestCloud c : h.clouds) {
      liars.add(new Liar(c));
    }
    liars.get(0).behave(Lie.INVENT_MANY, null);
    try (RafeStore reader = client(h, liars, WriterDiscovery.LISTING).build()) {
      h.run(reader.read(KEY));
      h.scheduler.runUntilIdle();
      Liar p0 = liars.get(0);
      assertThat(p0.lists.get()).isEqualTo(4);
      // Past the pages every trusted writer is asked for once: the explicit mode's cost, no more.
      assertThat(p0.asked).containsExactlyInAnyOrderElementsOf(IDS);
      assertThat(p0.gets.get()).isEqualTo(W);
      for (int i = 1; i < 4; i++) {
        assertThat(liars.get(i).lists.get()).isEqualTo(1);
        assertThat(liars.get(i).gets.get()).isLessThanOrEqualTo(AUTHORS.length);
      }
    }
  }

  /**
   * Many writers write and read one key in LISTING mode (AUTO with more than 8 trusted writers):
   * each write's timestamp is above every earlier write's, whoever wrote it, and every client reads
   * the last write. The request counts do not depend on the number of trusted writers.
   */
  @Test
  void writersInListingModeSeeEachOther() throws Exception {
    Harness h = harness(1);
    List<RafeStore> writers = new ArrayList<>();
    try {
      for (int i = 0; i < 6; i++) {
        writers.add(writer(h, i * 3));
      }
      assertThat(Harness.settings(writers.get(0)).listsWriters()).isTrue();
      Version previous = null;
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < writers.size(); i++) {
          byte[] value = bytes("v" + round + "-" + i);
          Version v = h.run(writers.get(i).write(KEY, value)).version();
          if (previous != null) {
            assertThat(v).isGreaterThan(previous);
          }
          previous = v;
          StoredValue r = h.run(writers.get((i + 1) % writers.size()).read(KEY));
          assertThat(r.version()).isEqualTo(v);
          assertThat(r.value()).isEqualTo(value);
        }
      }
      assertThat(h.run(writers.get(0).history(KEY, Optional.empty(), 100)).versions()).hasSize(18);
    } finally {
      for (RafeStore s : writers) {
        s.close();
      }
    }
  }

  /**
   * One round trip when the writers are expected or named by the first listing: a warm read and a
   * cold one of a key written by one of twenty writers both end when the third-fastest cloud
   * answers once (Table 1 round trips: 750 ms), not after a listing and then a GET there.
   */
  @Test
  void listingReadMTakesOneRoundTripColdAndWarm() throws Exception {
    Harness h = new Harness(1, 4).rtts(Harness.table1());
    try (RafeStore a = writer(h, 13)) {
      h.run(a.write(KEY, bytes("x")));
    }
    h.scheduler.advance(Duration.ofMinutes(1));
    try (RafeStore reader = client(h, h.clouds, WriterDiscovery.LISTING).build()) {
      Context ctx = new Context(Harness.settings(reader));
      for (int round = 0; round < 2; round++) {
        long start = h.scheduler.nanoTime();
        View v = h.run(MetadataRead.run(ctx, KEY));
        long ms = (h.scheduler.nanoTime() - start) / 1_000_000;
        assertThat(v.logs).containsOnlyKeys(IDS.get(13));
        assertThat(ms).as("round %d", round).isBetween(750L, 790L);
        h.scheduler.runUntilIdle();
      }
    }
  }

  /** A key nobody wrote: one listing per cloud, no GET, and "not found". */
  @Test
  void aKeyNobodyWroteCostsOneListingPerCloud() throws Exception {
    Harness h = harness(1);
    List<Liar> liars = new ArrayList<>();
    for (TestCloud c : h.clouds) {
      liars.add(new Liar(c));
    }
    try (RafeStore reader = client(h, liars, WriterDiscovery.LISTING).build()) {
      View v = h.run(MetadataRead.run(new Context(Harness.settings(reader)), "nobody"));
      h.scheduler.runUntilIdle();
      assertThat(v.logs).isEmpty();
      assertThat(liars).allMatch(c -> c.lists.get() == 1 && c.gets.get() == 0);
    }
  }

  /** AUTO keeps one GET per trusted writer for a small explicit set and lists above it. */
  @Test
  void autoListsOnlyAboveEightTrustedWriters() {
    Harness h = harness(1);
    RafeStore.Builder few =
        RafeStore.builder().faultsTolerated(1).scheduler(h.scheduler).closeDrivers(false);
    for (TestCloud c : h.clouds) {
      few.cloud(c);
    }
    for (int i = 0; i < WriterDiscovery.AUTO_PER_WRITER_MAX; i++) {
      few.trustWriter(IDS.get(i), KEYS.get(i).getPublic());
    }
    try (RafeStore s = few.build()) {
      assertThat(Harness.settings(s).listsWriters()).isFalse();
    }
    try (RafeStore s = client(h, h.clouds, WriterDiscovery.AUTO).build()) {
      assertThat(Harness.settings(s).listsWriters()).isTrue();
    }
    try (RafeStore s = client(h, h.clouds, WriterDiscovery.PER_WRITER).build()) {
      assertThat(Harness.settings(s).listsWriters()).isFalse();
    }
  }
}
