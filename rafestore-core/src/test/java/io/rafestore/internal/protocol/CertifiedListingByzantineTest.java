package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.RevocationList;
import io.rafestore.SigningKeys;
import io.rafestore.WriterCertificate;
import io.rafestore.WriterDiscovery;
import io.rafestore.WriterTrustException;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.CertifiedTrust;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Byzantine matrix of issue 23 for certified writers and a listing readM (design.md section 5,
 * "readM with many writers"; section 4, "Writer certificates"): a reader that trusts only the
 * operator key reads a key whose writers were certified after its trust snapshot, while one cloud
 * (each placement in turn, n = 4, f = 1) hides the newest writer's log from its listing, lists
 * 1,000 invented writers, replays an older revocation list, or serves a forged certificate of the
 * newest writer. The read returns what an honest deployment gives, and the invented writers cost at
 * most {@link MetadataRead#CHECKS_PER_CLOUD} certificate reads of the faulty cloud per read. On
 * in-memory clouds and virtual time.
 */
class CertifiedListingByzantineTest {
  static final KeyPair OPS = SigningKeys.generate();
  static final String KEY = "forum/thread-9";
  static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");
  static final Duration REFRESH = Duration.ofMinutes(5);
  static final int INVENTED = 1_000;

  /** How the faulty cloud lies. */
  enum Lie {
    /** Its listing of the key's logs omits the newest writer's log (it serves it if asked). */
    HIDE,
    /**
     * Its listing of the key's logs adds 1,000 invented writer ids, sorted before the real ones.
     */
    INVENT,
    /** It serves the operator's first revocation list instead of the newest. */
    REPLAY,
    /**
     * It serves, as bob's certificate, one for another key issued later, signed by a key that is
     * not the operator's (it names the operator): were it believed, bob's logs would not verify.
     */
    FORGE
  }

  final Harness h = new Harness(1, 4).rtts(10, 50, 90, 130);

  final Clock clock =
      new Clock() {
        @Override
        public ZoneOffset getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return T0.plus(h.scheduler.elapsed());
        }
      };

  /** A cloud as the reader sees it: counts its requests by kind and lies as told. */
  static final class Faulty extends ForwardingCloud {
    volatile Lie lie;
    volatile String hidden;
    volatile byte[] oldList;
    volatile byte[] forged;
    final AtomicInteger certificateGets = new AtomicInteger();
    final AtomicInteger logGets = new AtomicInteger();
    final AtomicInteger certificateLists = new AtomicInteger();
    final AtomicInteger logLists = new AtomicInteger();

    Faulty(CloudDriver inner) {
      super(inner);
    }

    void reset() {
      certificateGets.set(0);
      logGets.set(0);
      certificateLists.set(0);
      logLists.set(0);
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<io.rafestore.spi.ByteRange> r) {
      String k = key.value();
      if (k.startsWith(Names.CERTIFICATE_PREFIX)) {
        certificateGets.incrementAndGet();
        if (lie == Lie.FORGE && k.equals(Names.certificateObject(hidden).value())) {
          return CompletableFuture.completedFuture(forged.clone());
        }
      } else if (k.startsWith(Names.METADATA_PREFIX)) {
        logGets.incrementAndGet();
      } else if (lie == Lie.REPLAY && k.equals(Names.revocationObject("ops").value())) {
        return CompletableFuture.completedFuture(oldList.clone());
      }
      return super.get(key, r);
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      if (prefix.startsWith(Names.CERTIFICATE_PREFIX)) {
        certificateLists.incrementAndGet();
      }
      return super.list(prefix);
    }

    @Override
    public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
      if (!prefix.startsWith(Names.METADATA_PREFIX)) {
        return super.list(prefix, startAfter, limit);
      }
      logLists.incrementAndGet();
      Lie l = lie;
      if (l != Lie.HIDE && l != Lie.INVENT) {
        return super.list(prefix, startAfter, limit);
      }
      return super.list(prefix)
          .thenApply(
              all -> {
                TreeMap<String, ObjectInfo> names = new TreeMap<>();
                for (ObjectInfo o : all) {
                  if (l == Lie.HIDE && o.key().value().equals(prefix + hidden)) {
                    continue;
                  }
                  names.put(o.key().value(), o);
                }
                if (l == Lie.INVENT) {
                  for (int i = 0; i < INVENTED; i++) {
                    String n = prefix + String.format("a%04d", i);
                    names.put(n, new ObjectInfo(ObjectKey.of(n), 100));
                  }
                }
                return ListPage.of(new ArrayList<>(names.values()), prefix, startAfter, limit);
              });
    }
  }

  RafeStore.Builder base(List<? extends CloudDriver> clouds) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(ProtocolMode.PAPER)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .clock(clock)
            .closeDrivers(false)
            .inlineThreshold(0)
            .trustRefresh(REFRESH)
            .writerDiscovery(WriterDiscovery.LISTING)
            .trustOperator("ops", OPS.getPublic());
    for (int i = 0; i < clouds.size(); i++) {
      b.cloud(clouds.get(i), CloudRole.DATA_AND_METADATA, h.clouds.get(i).rtt());
    }
    return b;
  }

  RafeStore writer(String id, KeyPair keys) {
    WriterCertificate cert =
        WriterCertificate.issue(
            id,
            keys.getPublic(),
            clock.instant(),
            clock.instant().plus(Duration.ofDays(30)),
            clock.instant(),
            "ops",
            OPS.getPrivate());
    return base(h.clouds).writer(id, keys).writerCertificate(cert).build();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static Stream<Arguments> matrix() {
    List<Arguments> out = new ArrayList<>();
    for (int faulty = 0; faulty < 4; faulty++) {
      for (Lie lie : Lie.values()) {
        out.add(Arguments.of(faulty, lie));
      }
    }
    return out.stream();
  }

  /**
   * Writers bob, carol and (later revoked) mallory are certified after the reader took its trust
   * snapshot, so the read must check them from the listing; bob's newest write misses one correct
   * cloud (it was down), so only n - f clouds hold it; mallory's write after bob's is by a revoked
   * writer. The read must return bob's newest value whichever cloud lies and how.
   */
  @ParameterizedTest(name = "faulty=p{0} {1}")
  @MethodSource("matrix")
  void aLyingCloudChangesNeitherTheReadNorItsCostBeyondTheBound(int faulty, Lie lie)
      throws Exception {
    List<Faulty> clouds = new ArrayList<>();
    for (TestCloud c : h.clouds) {
      clouds.add(new Faulty(c));
    }
    RevocationList one = RevocationList.issue("ops", 1, T0, List.of("x"), OPS.getPrivate());
    // Hiding and inventing: a reader whose trust snapshot predates every writer, so that the read
    // checks the writers its listings name. Replaying: a fresh reader, which reads the lists from
    // the clouds with the faulty one among them.
    List<WriterTrustException> rejected = new CopyOnWriteArrayList<>();
    RafeStore early =
        lie == Lie.REPLAY
            ? null
            : base(clouds)
                .listener(
                    new RafeStoreListener() {
                      @Override
                      public void writerRejected(String key, WriterTrustException why) {
                        rejected.add(why);
                      }
                    })
                .build();
    try {
      if (early != null) {
        snapshot(early);
      }
      int lagging = faulty == 1 ? 2 : 1;
      try (RafeStore bob = writer("bob", SigningKeys.generate());
          RafeStore carol = writer("carol", SigningKeys.generate());
          RafeStore mallory = writer("mallory", SigningKeys.generate());
          RafeStore operator = base(h.clouds).build()) {
        h.run(operator.publishRevocations(one));
        h.run(carol.write(KEY, utf8("c1")));
        h.run(bob.write(KEY, utf8("b1")));
        h.clouds.get(lagging).behave(TestCloud.Behaviour.CRASH);
        h.run(bob.write(KEY, utf8("b2")));
        h.scheduler.advance(Duration.ofSeconds(5));
        h.clouds.get(lagging).behave(TestCloud.Behaviour.CORRECT);
        if (lie == Lie.REPLAY) {
          // A newer write by a writer the newest list revokes: the older list would let it win.
          h.run(mallory.write(KEY, utf8("m1")));
          h.run(
              operator.publishRevocations(
                  one.plus(List.of("mallory"), clock.instant(), OPS.getPrivate())));
        }
        h.scheduler.runUntilIdle();
      }
      // A fresh reader on honest clouds: the truth.
      try (RafeStore honest = base(h.clouds).build()) {
        assertThat(h.run(honest.read(KEY)).value()).isEqualTo(utf8("b2"));
      }
      Faulty liar = clouds.get(faulty);
      liar.lie = lie;
      liar.hidden = "bob";
      liar.oldList = one.encoded();
      liar.forged =
          WriterCertificate.issue(
                  "bob",
                  Harness.MALLORY.getPublic(),
                  T0,
                  T0.plus(Duration.ofDays(30)),
                  clock.instant(),
                  "ops",
                  Harness.MALLORY.getPrivate())
              .encoded();
      clouds.forEach(Faulty::reset);
      try (RafeStore reader = early != null ? early : base(clouds).build()) {
        assertThat(h.run(reader.read(KEY)).value())
            .as("read with p%d %s", faulty, lie)
            .isEqualTo(utf8("b2"));
        h.scheduler.runUntilIdle();
      }
      if (lie == Lie.FORGE && faulty == 0) {
        // The fastest cloud's forgery is among the answers the check waited for: named.
        assertThat(rejected)
            .extracting(WriterTrustException::reason)
            .contains(WriterTrustException.Reason.BAD_SIGNATURE);
      }
      int certificateGets = clouds.stream().mapToInt(c -> c.certificateGets.get()).sum();
      int certificateLists = clouds.stream().mapToInt(c -> c.certificateLists.get()).sum();
      // Bound: CHECKS_PER_CLOUD certificate reads (one GET per cloud each) for the faulty cloud's
      // listing; for each of the three real certified writers, one read by a check and one by the
      // reading of the trust data the names past the faulty cloud's checks force (one per read at
      // most: a listing of c/ per cloud, and the certificates it lists that the trust does not
      // hold yet; no cloud lists a certificate of an invented name). Without the bound: 1,000.
      int n = clouds.size();
      assertThat(certificateGets)
          .as("certificate GETs with p%d %s", faulty, lie)
          .isLessThanOrEqualTo(n * (MetadataRead.CHECKS_PER_CLOUD + 2 * 3));
      assertThat(certificateLists).as("c/ listings").isLessThanOrEqualTo(2 * n);
      for (Faulty c : clouds) {
        // Only the real writers' logs are asked for, never an invented one's.
        assertThat(c.logGets.get()).as("log GETs").isLessThanOrEqualTo(3);
        // At most MetadataRead.MAX_PAGES listing pages.
        assertThat(c.logLists.get()).as("listing pages").isLessThanOrEqualTo(4);
      }
    } finally {
      if (early != null) {
        early.close();
      }
    }
  }

  /** Makes {@code reader} take its trust snapshot now (a read of a key nobody wrote). */
  void snapshot(RafeStore reader) throws Exception {
    try {
      h.run(reader.read("nobody"));
    } catch (java.util.concurrent.ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(io.rafestore.KeyNotFoundException.class);
    }
  }

  /**
   * More writers certified after the reader's snapshot than one cloud's listing may check one by
   * one: the rest wait for the trust data read again after that listing, so every writer's log is
   * still found (the safety half of the bound).
   */
  @Test
  void moreNewWritersThanAListingMayCheckAreAllFound() throws Exception {
    // More than every cloud's checks together: whatever the order the listings arrive in, the
    // last ids are past the checks of every cloud.
    int writers = MetadataRead.CHECKS_PER_CLOUD * h.clouds.size() + 4;
    try (RafeStore reader = base(h.clouds).build()) {
      Context ctx = new Context(Harness.settings(reader), CertifiedTrust::new);
      // The trust snapshot: no certified writer yet.
      assertThat(h.run(MetadataRead.run(ctx, KEY)).logs).isEmpty();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        ids.add(String.format("w%02d", i));
        try (RafeStore w = writer(ids.get(i), SigningKeys.generate())) {
          h.run(w.write(KEY, utf8("v" + i)));
          h.scheduler.advance(Duration.ofMillis(10));
        }
      }
      h.scheduler.runUntilIdle();
      // Every cloud lists all of them, the newest (the last id) past the checks: all are found.
      View view = h.run(MetadataRead.run(ctx, KEY));
      assertThat(view.logs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(view.visible.get(0).version().writer()).isEqualTo(ids.get(writers - 1));
    }
  }
}
