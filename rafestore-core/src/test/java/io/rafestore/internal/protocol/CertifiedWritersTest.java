package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.KeyNotFoundException;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.RevocationList;
import io.rafestore.SigningKeys;
import io.rafestore.VersionInfo;
import io.rafestore.WriterCertificate;
import io.rafestore.WriterTrustException;
import io.rafestore.WriterTrustException.Reason;
import io.rafestore.internal.util.Names;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Writers certified by an operator key (issue 23; design.md section 4, "Writer certificates"): a
 * reader that trusts only the operator reads a certified writer's versions; expired, not yet valid,
 * revoked and forged certificates are refused with the reason named; a faulty cloud replaying an
 * old revocation list cannot undo a revocation. On in-memory clouds and virtual time.
 */
class CertifiedWritersTest {
  static final KeyPair OPS = SigningKeys.generate();
  static final KeyPair EVIL = SigningKeys.generate();
  static final KeyPair BOB = SigningKeys.generate();
  static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");
  static final Duration REFRESH = Duration.ofMinutes(1);

  final Harness h = new Harness(1, 4);

  /** Wall clock that follows the harness's virtual time, from T0. */
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

  /** Writer-rejected events a client's listener saw. */
  final List<WriterTrustException> rejected = new CopyOnWriteArrayList<>();

  RafeStore.Builder base() {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(ProtocolMode.PAPER)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .clock(clock)
            .closeDrivers(false)
            .inlineThreshold(0)
            .trustRefresh(REFRESH);
    for (TestCloud c : h.clouds) {
      b.cloud(c, CloudRole.DATA_AND_METADATA, c.rtt());
    }
    return b;
  }

  /** A reader that trusts only the operator key "ops". */
  RafeStore reader() {
    return base()
        .trustOperator("ops", OPS.getPublic())
        .listener(
            new RafeStoreListener() {
              @Override
              public void writerRejected(String key, WriterTrustException why) {
                rejected.add(why);
              }
            })
        .build();
  }

  static WriterCertificate cert(String writer, KeyPair keys, Instant from, Instant to) {
    return WriterCertificate.issue(
        writer, keys.getPublic(), from, to, from, "ops", OPS.getPrivate());
  }

  RafeStore bob(WriterCertificate cert) {
    return base().writer("bob", BOB).writerCertificate(cert).build();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** What {@code f} failed with (it must fail). */
  Throwable failure(java.util.concurrent.CompletableFuture<?> f) {
    try {
      h.run(f);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("did not fail");
  }

  Reason refusal(RafeStore store, String writer) {
    try {
      h.run(store.checkWriter(writer));
      return null;
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(WriterTrustException.class);
      return ((WriterTrustException) e.getCause()).reason();
    }
  }

  @Test
  void aCertifiedWriterIsReadByAReaderThatTrustsOnlyItsOperator() throws Exception {
    try (RafeStore bob = bob(cert("bob", BOB, T0, T0.plus(Duration.ofDays(90))));
        RafeStore reader = reader()) {
      h.run(bob.write("k", utf8("from bob")));
      assertThat(h.stores.get(0).get(Names.certificateObject("bob")).join()).isNotEmpty();
      assertThat(h.run(reader.read("k")).value()).isEqualTo(utf8("from bob"));
      assertThat(h.run(reader.read("k")).info().version().writer()).isEqualTo("bob");
      assertThat(refusal(reader, "bob")).isNull();
      assertThat(refusal(reader, "carol")).isEqualTo(Reason.NOT_CERTIFIED);
    }
  }

  @Test
  void aWriterCertifiedAfterTheReadersSnapshotIsReadAtOnceByAListingRead() throws Exception {
    try (RafeStore reader = reader();
        RafeStore perWriter =
            base()
                .trustOperator("ops", OPS.getPublic())
                .writerDiscovery(io.rafestore.WriterDiscovery.PER_WRITER)
                .build()) {
      // Both readers take their snapshot of the certified writers now: bob has none yet.
      assertThat(failure(reader.read("k"))).isInstanceOf(KeyNotFoundException.class);
      assertThat(failure(perWriter.read("k"))).isInstanceOf(KeyNotFoundException.class);
      try (RafeStore bob = bob(cert("bob", BOB, T0, T0.plus(Duration.ofDays(90))))) {
        h.run(bob.write("k", utf8("new writer")));
      }
      // Within the refresh interval: the listing read (AUTO with an operator key) checks the
      // listed, unknown writer's certificate at once and reads its write.
      assertThat(h.run(reader.read("k")).value()).isEqualTo(utf8("new writer"));
      assertThat(h.run(reader.read("k")).info().version().writer()).isEqualTo("bob");
      // An explicit PER_WRITER read knows only the snapshot's writers until the next refresh.
      assertThat(failure(perWriter.read("k"))).isInstanceOf(KeyNotFoundException.class);
      h.scheduler.advance(REFRESH);
      assertThat(h.run(perWriter.read("k")).value()).isEqualTo(utf8("new writer"));
    }
  }

  @Test
  void aListedWriterWithoutACertificateIsNeverFetched() throws Exception {
    try (RafeStore rogue = base().writer("carol", Harness.MALLORY).build();
        RafeStore bob = bob(cert("bob", BOB, T0, T0.plus(Duration.ofDays(90))));
        RafeStore reader = reader()) {
      h.run(bob.write("k", utf8("certified")));
      h.scheduler.advance(Duration.ofSeconds(1));
      // An uncertified writer's log under the key, newer than bob's: listed, checked, refused.
      h.run(rogue.write("k", utf8("uncertified")));
      assertThat(h.run(reader.read("k")).value()).isEqualTo(utf8("certified"));
      assertThat(refusal(reader, "carol")).isEqualTo(Reason.NOT_CERTIFIED);
    }
  }

  @Test
  void explicitTrustKeepsWorkingBesideCertifiedWriters() throws Exception {
    try (RafeStore alice = h.builder(ProtocolMode.PAPER).clock(clock).build();
        RafeStore bob = bob(cert("bob", BOB, T0, T0.plus(Duration.ofDays(90))));
        RafeStore reader =
            base()
                .trustWriter("alice", Harness.ALICE.getPublic())
                .trustOperator("ops", OPS.getPublic())
                .build()) {
      h.run(alice.write("k", utf8("a")));
      h.run(bob.write("k", utf8("b")));
      List<VersionInfo> history =
          h.run(reader.history("k", java.util.Optional.empty(), 10)).versions();
      assertThat(history).extracting(v -> v.version().writer()).containsExactly("bob", "alice");
      // A client without the operator key sees alice's version alone.
      try (RafeStore old = base().trustWriter("alice", Harness.ALICE.getPublic()).build()) {
        assertThat(h.run(old.read("k")).value()).isEqualTo(utf8("a"));
      }
    }
  }

  @Test
  void anExpiredCertificateStopsTheWriterButKeepsItsEarlierVersionsReadable() throws Exception {
    WriterCertificate c = cert("bob", BOB, T0, T0.plus(Duration.ofHours(1)));
    try (RafeStore bob = bob(c);
        RafeStore reader = reader()) {
      h.run(bob.write("k", utf8("in time")));
      h.scheduler.advance(Duration.ofHours(2));
      assertThat(failure(bob.write("k", utf8("too late"))))
          .isInstanceOf(WriterTrustException.class)
          .hasMessageContaining("EXPIRED")
          .satisfies(
              e -> assertThat(((WriterTrustException) e).reason()).isEqualTo(Reason.EXPIRED));
      assertThat(refusal(reader, "bob")).isEqualTo(Reason.EXPIRED);
      // Entries created within the period stay readable after it.
      assertThat(h.run(reader.read("k")).value()).isEqualTo(utf8("in time"));
    }
  }

  @Test
  void aLogWithAnEntryCreatedAfterTheCertificateEndedIsIgnoredWithTheReason() throws Exception {
    WriterCertificate c = cert("bob", BOB, T0, T0.plus(Duration.ofHours(1)));
    try (RafeStore bob = bob(c);
        RafeStore reader = reader()) {
      h.run(bob.write("k", utf8("in time")));
      assertThat(h.run(reader.read("k")).value()).isEqualTo(utf8("in time"));
    }
    h.scheduler.advance(Duration.ofHours(2));
    // A writer with bob's key that does not check its own period (a wrong clock, an old client).
    try (RafeStore rogue = base().writer("bob", BOB).build();
        RafeStore reader = reader()) {
      h.run(rogue.write("k2", utf8("late")));
      assertThat(failure(reader.read("k2"))).isInstanceOf(KeyNotFoundException.class);
      assertThat(rejected).extracting(WriterTrustException::reason).contains(Reason.EXPIRED);
      assertThat(rejected.get(0).getMessage()).contains("after its certificate expired");
    }
  }

  @Test
  void aCertificateNotYetValidIsRefused() throws Exception {
    WriterCertificate c =
        cert("bob", BOB, T0.plus(Duration.ofDays(1)), T0.plus(Duration.ofDays(2)));
    try (RafeStore bob = bob(c);
        RafeStore reader = reader()) {
      assertThat(failure(bob.write("k", utf8("early"))))
          .isInstanceOf(WriterTrustException.class)
          .satisfies(
              e -> assertThat(((WriterTrustException) e).reason()).isEqualTo(Reason.NOT_YET_VALID));
      h.run(reader.publishCertificate(c));
      assertThat(refusal(reader, "bob")).isEqualTo(Reason.NOT_YET_VALID);
    }
    // Its logs are not read before the period starts.
    try (RafeStore rogue = base().writer("bob", BOB).build();
        RafeStore reader = reader()) {
      h.run(rogue.write("k", utf8("early")));
      assertThat(failure(reader.read("k"))).isInstanceOf(KeyNotFoundException.class);
    }
  }

  @Test
  void forgedCertificatesAreRefusedWithTheirReason() throws Exception {
    Instant to = T0.plus(Duration.ofDays(1));
    try (RafeStore reader = reader()) {
      // Signed by a key the reader does not trust.
      h.run(
          reader.publishCertificate(
              WriterCertificate.issue(
                  "bob", BOB.getPublic(), T0, to, T0, "evil", EVIL.getPrivate())));
      assertThat(refusal(reader, "bob")).isEqualTo(Reason.UNKNOWN_OPERATOR);
      // Naming the trusted operator, signed by another key.
      h.run(
          reader.publishCertificate(
              WriterCertificate.issue(
                  "carol", BOB.getPublic(), T0, to, T0, "ops", EVIL.getPrivate())));
      assertThat(refusal(reader, "carol")).isEqualTo(Reason.BAD_SIGNATURE);
      // A valid certificate of another writer stored as dave's.
      byte[] erin = cert("erin", BOB, T0, to).encoded();
      for (var s : h.stores) {
        s.put(Names.certificateObject("dave"), erin).join();
      }
      assertThat(refusal(reader, "dave")).isEqualTo(Reason.WRONG_WRITER);
      // Cut bytes.
      for (var s : h.stores) {
        s.put(Names.certificateObject("frank"), java.util.Arrays.copyOf(erin, 40)).join();
      }
      assertThat(refusal(reader, "frank")).isEqualTo(Reason.MALFORMED);
    }
    // A writer cannot carry another writer's certificate, nor one of another key.
    assertThatThrownBy(
            () -> base().writer("bob", BOB).writerCertificate(cert("erin", BOB, T0, to)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("WRONG_WRITER");
    assertThatThrownBy(
            () ->
                base()
                    .writer("bob", BOB)
                    .writerCertificate(cert("bob", Harness.MALLORY, T0, to))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("WRONG_KEY");
  }

  @Test
  void aRevokedWriterIsNoLongerReadOnceTheRefreshIntervalPassed() throws Exception {
    try (RafeStore bob = bob(cert("bob", BOB, T0, T0.plus(Duration.ofDays(90))));
        RafeStore reader = reader();
        RafeStore operator = reader()) {
      h.run(bob.write("k", utf8("before")));
      assertThat(h.run(reader.read("k")).value()).isEqualTo(utf8("before"));
      h.run(
          operator.publishRevocations(
              RevocationList.issue("ops", 1, clock.instant(), List.of("bob"), OPS.getPrivate())));
      // Within the refresh interval the reader may still accept bob: that is the stated bound.
      assertThat(h.run(reader.read("k")).value()).isEqualTo(utf8("before"));
      h.scheduler.advance(REFRESH);
      assertThat(failure(reader.read("k"))).isInstanceOf(KeyNotFoundException.class);
      assertThat(refusal(reader, "bob")).isEqualTo(Reason.REVOKED);
      // A list that is not newer, or that drops a revoked writer, is refused.
      assertThat(
              failure(
                  operator.publishRevocations(
                      RevocationList.issue(
                          "ops", 1, clock.instant(), List.of("bob", "x"), OPS.getPrivate()))))
          .isInstanceOf(WriterTrustException.class)
          .hasMessageContaining("STALE");
      assertThat(
              failure(
                  operator.publishRevocations(
                      RevocationList.issue(
                          "ops", 2, clock.instant(), List.of("x"), OPS.getPrivate()))))
          .hasMessageContaining("stays revoked");
    }
  }

  @Test
  void aFaultyCloudReplayingAnOldRevocationListCannotUndoARevocation() throws Exception {
    RevocationList one = RevocationList.issue("ops", 1, T0, List.of("x"), OPS.getPrivate());
    RevocationList two = one.plus(List.of("bob"), T0, OPS.getPrivate());
    try (RafeStore bob = bob(cert("bob", BOB, T0, T0.plus(Duration.ofDays(90))));
        RafeStore operator = reader()) {
      h.run(bob.write("k", utf8("v")));
      h.run(operator.publishRevocations(one));
      h.run(operator.publishRevocations(two));
      h.scheduler.runUntilIdle();
    }
    // The fastest cloud replays the old list: a fresh reader still sees the newest on a quorum.
    h.clouds.get(0).rtt(Duration.ofMillis(1));
    for (int i = 1; i < 4; i++) {
      h.clouds.get(i).rtt(Duration.ofMillis(100 * i));
    }
    h.stores.get(0).put(Names.revocationObject("ops"), one.encoded()).join();
    try (RafeStore reader = reader()) {
      assertThat(failure(reader.read("k"))).isInstanceOf(KeyNotFoundException.class);
      assertThat(refusal(reader, "bob")).isEqualTo(Reason.REVOKED);
      // Beyond the fault model (every cloud rolled back), the reader still remembers the newest
      // list it saw: the replay cannot undo the revocation for it.
      for (var s : h.stores) {
        s.put(Names.revocationObject("ops"), one.encoded()).join();
      }
      h.scheduler.advance(REFRESH.multipliedBy(2));
      assertThat(failure(reader.read("k"))).isInstanceOf(KeyNotFoundException.class);
      assertThat(h.run(reader.revocations("ops")).orElseThrow().sequence()).isEqualTo(2);
      // A client that never saw list 2 is fooled: what the memory protects against.
      try (RafeStore fresh = reader()) {
        assertThat(h.run(fresh.read("k")).value()).isEqualTo(utf8("v"));
      }
    }
  }
}
