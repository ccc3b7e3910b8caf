package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rafestore.drivers.gcs.GcsCloud;
import io.rafestore.drivers.s3.S3Cloud;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Conditional puts ({@link CloudDriver#putIfMatch}) on the four real drivers against the emulators:
 * MinIO and Azurite with If-Match / If-None-Match "*", fake-gcs-server with ifGenerationMatch,
 * Redis with the check-and-set script. Each stores exactly when the object is absent (no tag) or
 * still has the tag a {@code getTagged} gave, answers false otherwise and then leaves the object as
 * it was, and of several conditional puts racing with one tag exactly one stores.
 */
class ConditionalPutsEmulatorsTest {
  private static final long TIMEOUT_SECONDS = 60;
  private static final ObjectKey LOG = ObjectKey.of("m/topic/alice");

  /** One driver per emulator, and the S3 and GCS drivers also over their other write paths. */
  private static CloudDriver open(String variant) throws Exception {
    return switch (variant) {
      case "s3" -> Emulators.s3("minio");
      case "s3-apache" -> {
        S3Cloud d =
            s3Builder("minio-apache").transport(S3Cloud.Transport.APACHE).bucket(fresh()).build();
        d.createBucketIfMissing().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        yield d;
      }
      case "azure" -> Emulators.azure("azurite");
      case "gcs" -> Emulators.gcs("fakegcs");
      case "gcs-resumable" -> {
        // Every write through a resumable upload, whose precondition is given when the session
        // starts and checked when it completes.
        GcsCloud d =
            GcsCloud.builder("fakegcs-resumable")
                .endpoint(URI.create(Emulators.env("RAFESTORE_GCS_ENDPOINT")))
                .anonymous(true)
                .projectId("rafestore-test")
                .bucket(fresh())
                .resumableThreshold(0)
                .chunkSize(256 * 1024)
                .build();
        d.createBucketIfMissing().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        yield d;
      }
      case "redis" -> Emulators.redis("redis");
      default -> throw new IllegalArgumentException(variant);
    };
  }

  private static S3Cloud.Builder s3Builder(String id) {
    return S3Cloud.builder(id)
        .endpoint(URI.create(Emulators.env("RAFESTORE_S3_ENDPOINT")))
        .pathStyle(true)
        .credentials(
            Emulators.env("RAFESTORE_S3_ACCESS_KEY"), Emulators.env("RAFESTORE_S3_SECRET_KEY"));
  }

  private static String fresh() {
    return Emulators.fresh();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"s3", "s3-apache", "azure", "gcs", "gcs-resumable", "redis"})
  void storesOnlyWhereAbsentOrStillTagged(String variant) throws Exception {
    try (CloudDriver d = open(variant)) {
      assertThat(d.conditionalPuts()).as("conditionalPuts").isTrue();

      // Absent: stored; present: refused, the first bytes kept.
      assertThat(putIfMatch(d, LOG, "first", Optional.empty()))
          .as("put-if-absent, absent")
          .isTrue();
      assertThat(text(d, LOG)).isEqualTo("first");
      assertThat(putIfMatch(d, LOG, "not-first", Optional.empty()))
          .as("put-if-absent, present")
          .isFalse();
      assertThat(text(d, LOG)).isEqualTo("first");

      // The tag of a whole get matches: stored.
      String first = tag(d, LOG, Optional.empty());
      System.out.println("e2e: " + variant + " tag of 'first': " + first);
      assertThat(putIfMatch(d, LOG, "second", Optional.of(first)))
          .as("if-match, same tag")
          .isTrue();
      assertThat(text(d, LOG)).isEqualTo("second");
      // That tag is spent: the object changed.
      assertThat(putIfMatch(d, LOG, "not-second", Optional.of(first)))
          .as("if-match, tag of the bytes replaced")
          .isFalse();
      assertThat(text(d, LOG)).isEqualTo("second");

      // The tag of a ranged get (as repair reads a log) is the whole object's: it matches too.
      String second = tag(d, LOG, Optional.of(ByteRange.of(0, 4)));
      assertThat(putIfMatch(d, LOG, "third", Optional.of(second)))
          .as("if-match, tag of a ranged get")
          .isTrue();
      assertThat(text(d, LOG)).isEqualTo("third");

      // A plain put lands between the tagged get and the conditional put: refused, its bytes kept.
      String third = tag(d, LOG, Optional.empty());
      await(d.put(LOG, utf8("newer log")));
      assertThat(putIfMatch(d, LOG, "older log", Optional.of(third)))
          .as("if-match after another put")
          .isFalse();
      assertThat(text(d, LOG)).isEqualTo("newer log");

      // A deleted object's tag matches nothing, and nothing is created.
      String newer = tag(d, LOG, Optional.empty());
      await(d.delete(LOG));
      assertThat(putIfMatch(d, LOG, "resurrected", Optional.of(newer)))
          .as("if-match on a deleted object")
          .isFalse();
      assertNotFound(d, LOG);
      // Absent again: a put-if-absent stores.
      assertThat(putIfMatch(d, LOG, "again", Optional.empty()))
          .as("put-if-absent after delete")
          .isTrue();
      assertThat(text(d, LOG)).isEqualTo("again");

      // A tag of another key's different bytes does not match here.
      ObjectKey other = ObjectKey.of("m/other/alice");
      await(d.put(other, utf8("other bytes")));
      String otherTag = tag(d, other, Optional.empty());
      assertThat(putIfMatch(d, LOG, "foreign", Optional.of(otherTag)))
          .as("if-match with another object's tag")
          .isFalse();
      assertThat(text(d, LOG)).isEqualTo("again");
      // Nor does If-Match's wildcard, which is no tag this driver gives.
      assertThat(putIfMatch(d, LOG, "wildcard", Optional.of("*"))).as("if-match *").isFalse();
      assertThat(text(d, LOG)).isEqualTo("again");
    }
  }

  /**
   * Conditional puts racing with one tag (and, on a fresh key, with none): the check and the store
   * are one step at the cloud, so exactly one stores, and the object holds its bytes. A driver that
   * read the tag and then stored in two steps would let several succeed.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"s3", "s3-apache", "azure", "gcs", "gcs-resumable", "redis"})
  void ofRacingConditionalPutsExactlyOneStores(String variant) throws Exception {
    int racers = 8;
    try (CloudDriver d = open(variant)) {
      for (int round = 0; round < 3; round++) {
        ObjectKey fresh = ObjectKey.of("m/race-" + round + "/alice");
        assertThat(race(d, fresh, Optional.empty(), racers, "absent-" + round))
            .as("%s round %d: winners of put-if-absent", variant, round)
            .hasSize(1);

        await(d.put(LOG, utf8("base-" + round)));
        String tag = tag(d, LOG, Optional.empty());
        List<String> winners = race(d, LOG, Optional.of(tag), racers, "tagged-" + round);
        assertThat(winners).as("%s round %d: winners of if-match", variant, round).hasSize(1);
        assertThat(text(d, LOG)).isEqualTo(winners.get(0));
      }
    }
  }

  /** The bytes each racer that stored put, after checking the object holds one racer's. */
  private static List<String> race(
      CloudDriver d, ObjectKey key, Optional<String> ifMatch, int racers, String name)
      throws Exception {
    List<CompletableFuture<Boolean>> puts = new ArrayList<>();
    List<String> payloads = new ArrayList<>();
    for (int i = 0; i < racers; i++) {
      String payload = name + "-racer-" + i;
      payloads.add(payload);
      puts.add(d.putIfMatch(key, utf8(payload), ifMatch));
    }
    List<String> winners = new ArrayList<>();
    for (int i = 0; i < racers; i++) {
      if (puts.get(i).get(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        winners.add(payloads.get(i));
      }
    }
    assertThat(payloads).contains(text(d, key));
    return winners;
  }

  /**
   * S3 above the multipart threshold: a value put stores in parts (its ETag is the parts' "-N"
   * one), and a conditional put of a value that size still goes as one PutObject carrying the
   * condition.
   */
  @Test
  void s3ConditionalPutsAboveTheMultipartThresholdAreSinglePuts() throws Exception {
    long threshold = 5L * 1024 * 1024;
    try (S3Cloud d =
        s3Builder("minio-large")
            .multipartThreshold(threshold)
            .partSize(threshold)
            .bucket(fresh())
            .build()) {
      d.createBucketIfMissing().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      byte[] big = filled((int) (2 * threshold) + 1024 * 1024, (byte) 'a');
      await(d.put(LOG, big));
      String parts = tag(d, LOG, Optional.of(ByteRange.of(0, 16)));
      System.out.println("e2e: ETag of a multipart upload: " + parts);
      assertThat(parts).as("a multipart upload's ETag").matches("\"?[0-9a-f]{32}-3\"?");

      byte[] other = filled(big.length, (byte) 'b');
      assertThat(await(d.putIfMatch(LOG, other, Optional.empty()))).isFalse();
      assertThat(await(d.putIfMatch(LOG, other, Optional.of(parts)))).isTrue();
      assertThat(Arrays.equals(await(d.get(LOG)), other)).isTrue();
      byte[] third = filled(big.length, (byte) 'c');
      assertThat(await(d.putIfMatch(LOG, third, Optional.of(parts)))).isFalse();
      assertThat(Arrays.equals(await(d.get(LOG)), other)).isTrue();
    }
  }

  private static byte[] filled(int size, byte b) {
    byte[] out = new byte[size];
    Arrays.fill(out, b);
    return out;
  }

  private static boolean putIfMatch(
      CloudDriver d, ObjectKey key, String data, Optional<String> ifMatch) throws Exception {
    return await(d.putIfMatch(key, utf8(data), ifMatch));
  }

  private static String tag(CloudDriver d, ObjectKey key, Optional<ByteRange> range)
      throws Exception {
    TaggedGet t = await(d.getTagged(key, range, Optional.empty()));
    assertThat(t.tag()).as("tag of %s on %s", key, d.id()).isPresent();
    return t.tag().get();
  }

  private static String text(CloudDriver d, ObjectKey key) throws Exception {
    return new String(await(d.get(key)), StandardCharsets.UTF_8);
  }

  private static void assertNotFound(CloudDriver d, ObjectKey key) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(d.get(key)));
    assertThat(e.getCause()).isInstanceOf(CloudException.class);
    assertThat(((CloudException) e.getCause()).kind()).isEqualTo(CloudException.Kind.NOT_FOUND);
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
