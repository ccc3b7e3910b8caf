package io.rafestore.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link CloudDriver} must show, as one abstract JUnit 5 suite. A driver runs
 * it with a three-line subclass:
 *
 * <pre>{@code
 * class MyCloudContractTest extends CloudDriverContract {
 *   @Override protected CloudDriver newDriver() { return new MyCloud("p0", emulatorEndpoint()); }
 * }
 * }</pre>
 *
 * <p>Each test gets a fresh driver from {@link #newDriver()} over an empty namespace, and the
 * driver is closed and {@link #cleanUp(CloudDriver)} called after it. Waits are bounded by {@link
 * #timeout()} so a hung driver fails instead of blocking the build; nothing asserts on elapsed
 * time. The largest object is {@value #LARGE_OBJECT_BYTES} bytes, so the suite stays quick against
 * real emulators.
 */
public abstract class CloudDriverContract {
  /** Size of the large-object round trip. */
  protected static final int LARGE_OBJECT_BYTES = 20 * 1024 * 1024;

  /** The driver under test for the current test method. */
  protected CloudDriver driver;

  /** For subclasses: one per driver, naming how to make it. */
  protected CloudDriverContract() {}

  /**
   * A new driver over a fresh, empty namespace (a new bucket, container, directory or key prefix).
   * Called once before each test.
   */
  protected abstract CloudDriver newDriver() throws Exception;

  /** Called after each test, after the driver was closed; delete buckets or files here. */
  protected void cleanUp(CloudDriver closedDriver) throws Exception {}

  /** How long one operation may take before the test fails; raise it for slow emulators. */
  protected Duration timeout() {
    return Duration.ofSeconds(60);
  }

  @BeforeEach
  final void createDriver() throws Exception {
    driver = newDriver();
    assertThat(driver).as("newDriver()").isNotNull();
  }

  @AfterEach
  final void closeDriver() throws Exception {
    if (driver != null) {
      driver.close();
      cleanUp(driver);
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** Waits for {@code f}, failing the test on timeout; throws the driver's exception unwrapped. */
  protected final <T> T await(CompletableFuture<T> f) throws Exception {
    try {
      return f.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception) {
        throw (Exception) e.getCause();
      }
      throw e;
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new AssertionError("driver " + driver.id() + " did not answer within " + timeout(), e);
    }
  }

  /** Waits for {@code f} to fail and returns its cause, which must be a {@link CloudException}. */
  protected final CloudException awaitFailure(CompletableFuture<?> f) throws Exception {
    try {
      Object value = f.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("expected a CloudException, but the call returned " + value);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CloudException.class);
      return (CloudException) e.getCause();
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new AssertionError("driver " + driver.id() + " did not answer within " + timeout(), e);
    }
  }

  protected static ObjectKey key(String name) {
    return ObjectKey.of(name);
  }

  protected static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  protected static byte[] randomBytes(int length, long seed) {
    byte[] b = new byte[length];
    new SplittableRandom(seed).nextBytes(b); // seeded: the same bytes on every run
    return b;
  }

  private void put(String name, byte[] data) throws Exception {
    await(driver.put(key(name), data));
  }

  private byte[] get(String name) throws Exception {
    return await(driver.get(key(name)));
  }

  private byte[] get(String name, long offset, long length) throws Exception {
    return await(driver.get(key(name), Optional.of(ByteRange.of(offset, length))));
  }

  private List<String> names(String prefix) throws Exception {
    List<String> out = new ArrayList<>();
    for (ObjectInfo info : await(driver.list(prefix))) {
      out.add(info.key().value());
    }
    return out;
  }

  // ---- native multipart (drivers that offer it) ----------------------------------------------

  /** The driver's multipart capability; skips the test (with a note) for drivers without one. */
  private Multipart multipartOrSkip() {
    Optional<Multipart> m = driver.multipart();
    Assumptions.assumeTrue(
        m.isPresent(), "driver " + driver.id() + " has no native multipart upload (part objects)");
    assertThat(m.get().minPartSize()).isPositive();
    assertThat(m.get().maxParts()).isPositive();
    return m.get();
  }

  /** The size of the contract's full parts: the driver's minimum, at least 64 KiB. */
  private static int fullPart(Multipart m) {
    return (int) Math.max(m.minPartSize(), 64 * 1024);
  }

  @Test
  void multipartPartsPutOutOfOrderAndConcurrentlyJoinExactlyOnComplete() throws Exception {
    Multipart m = multipartOrSkip();
    int full = fullPart(m);
    byte[][] parts = {randomBytes(full, 11), randomBytes(full, 12), randomBytes(1000, 13)};
    MultipartUpload up = await(m.begin(key("mp/joined")));
    assertThat(up.key()).isEqualTo(key("mp/joined"));
    try {
      await(up.putPart(2, parts[2]));
      CompletableFuture<Void> p1 = up.putPart(1, parts[1]);
      CompletableFuture<Void> p0 = up.putPart(0, parts[0]);
      await(p1);
      await(p0);
      // Nothing is visible before complete.
      assertThat(awaitFailure(driver.get(key("mp/joined"))).kind())
          .isEqualTo(CloudException.Kind.NOT_FOUND);
      assertThat(names("mp/")).isEmpty();
      await(up.complete(3));
    } catch (Exception | AssertionError e) {
      up.abort();
      throw e;
    }
    byte[] whole = concat(parts);
    assertThat(get("mp/joined")).isEqualTo(whole);
    List<ObjectInfo> listed = await(driver.list("mp/"));
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).size()).isEqualTo(whole.length);
    // Ranged gets across the part boundaries, as readers fetch one part of a joined object.
    assertThat(get("mp/joined", full - 10, 20)).isEqualTo(slice(whole, full - 10, 20));
    assertThat(get("mp/joined", full, full)).isEqualTo(parts[1]);
    assertThat(get("mp/joined", 2L * full, 1000)).isEqualTo(parts[2]);
    assertThat(get("mp/joined", 2L * full + 990, 100)).isEqualTo(slice(whole, 2 * full + 990, 10));
  }

  @Test
  void multipartAbortLeavesNothingAndIsIdempotent() throws Exception {
    Multipart m = multipartOrSkip();
    int full = fullPart(m);
    MultipartUpload up = await(m.begin(key("mp/aborted")));
    await(up.putPart(0, randomBytes(full, 21)));
    await(up.putPart(1, randomBytes(10, 22)));
    await(up.abort());
    await(up.abort());
    assertThat(awaitFailure(driver.get(key("mp/aborted"))).kind())
        .isEqualTo(CloudException.Kind.NOT_FOUND);
    assertThat(names("mp/")).isEmpty();
  }

  @Test
  void multipartPartUnderTheMinimumIsRefusedClearly() throws Exception {
    Multipart m = multipartOrSkip();
    Assumptions.assumeTrue(
        m.minPartSize() > 1, "driver " + driver.id() + " accepts parts of any size");
    MultipartUpload up = await(m.begin(key("mp/small")));
    try {
      await(up.putPart(0, bytes("too small")));
      await(up.putPart(1, bytes("last")));
      CloudException e = awaitFailure(up.complete(2));
      assertThat(e.cloudId()).isEqualTo(driver.id());
      assertThat(e.kind()).isEqualTo(CloudException.Kind.OTHER);
      assertThat(e.getMessage()).containsIgnoringCase("part");
    } finally {
      await(up.abort());
    }
    assertThat(awaitFailure(driver.get(key("mp/small"))).kind())
        .isEqualTo(CloudException.Kind.NOT_FOUND);
  }

  @Test
  void multipartCompleteReplacesAnExistingObjectWhole() throws Exception {
    Multipart m = multipartOrSkip();
    int full = fullPart(m);
    byte[] old = randomBytes(3 * full, 31);
    put("mp/replaced", old);
    byte[][] parts = {randomBytes(full, 32), randomBytes(7, 33)};
    MultipartUpload up = await(m.begin(key("mp/replaced")));
    await(up.putPart(0, parts[0]));
    await(up.putPart(1, parts[1]));
    // The old object stays as it was until complete.
    assertThat(get("mp/replaced")).isEqualTo(old);
    await(up.complete(2));
    assertThat(get("mp/replaced")).isEqualTo(concat(parts));
    assertThat(await(driver.list("mp/replaced")).get(0).size()).isEqualTo(full + 7L);
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private static byte[] slice(byte[] b, int from, int length) {
    return java.util.Arrays.copyOfRange(b, from, from + length);
  }

  // ---- identity ------------------------------------------------------------------------------

  @Test
  void idIsStableAndNotBlank() {
    assertThat(driver.id()).isNotBlank().isEqualTo(driver.id());
  }

  // ---- put and get ---------------------------------------------------------------------------

  @Test
  void getReturnsWhatWasPut() throws Exception {
    put("greeting", bytes("hello, clouds"));

    assertThat(get("greeting")).isEqualTo(bytes("hello, clouds"));
  }

  @Test
  void putReplacesWholeObject() throws Exception {
    put("k", bytes("a much longer first value"));
    put("k", bytes("short"));

    assertThat(get("k")).isEqualTo(bytes("short"));
    assertThat(await(driver.list("k"))).containsExactly(new ObjectInfo(key("k"), 5));
  }

  @Test
  void emptyObjectRoundTrips() throws Exception {
    put("empty", new byte[0]);

    assertThat(get("empty")).isEmpty();
    assertThat(get("empty", 0, 10)).isEmpty();
    assertThat(await(driver.list("empty"))).containsExactly(new ObjectInfo(key("empty"), 0));
  }

  @Test
  void allByteValuesRoundTrip() throws Exception {
    byte[] all = new byte[512];
    for (int i = 0; i < all.length; i++) {
      all[i] = (byte) i;
    }
    put("bytes/all", all);

    assertThat(get("bytes/all")).isEqualTo(all);
  }

  @Test
  void storedObjectDoesNotAliasCallerArrays() throws Exception {
    byte[] data = bytes("original");
    put("alias", data);
    data[0] = 'X';
    byte[] first = get("alias");
    first[1] = 'Y';

    assertThat(get("alias")).isEqualTo(bytes("original"));
  }

  @Test
  void largeObjectRoundTripsWithRangedReadInside() throws Exception {
    byte[] big = randomBytes(LARGE_OBJECT_BYTES, 20);
    put("large/object", big);

    assertThat(get("large/object")).isEqualTo(big);
    int offset = 7_654_321;
    int length = 1_000_003;
    assertThat(get("large/object", offset, length))
        .isEqualTo(java.util.Arrays.copyOfRange(big, offset, offset + length));
    assertThat(await(driver.list("large/")))
        .containsExactly(new ObjectInfo(key("large/object"), LARGE_OBJECT_BYTES));
  }

  // ---- ranged get ----------------------------------------------------------------------------

  @Test
  void rangedGetFromStart() throws Exception {
    put("r", bytes("0123456789"));

    assertThat(get("r", 0, 4)).isEqualTo(bytes("0123"));
  }

  @Test
  void rangedGetInMiddle() throws Exception {
    put("r", bytes("0123456789"));

    assertThat(get("r", 3, 4)).isEqualTo(bytes("3456"));
    assertThat(get("r", 9, 1)).isEqualTo(bytes("9"));
  }

  @Test
  void rangedGetRunningPastEndIsCut() throws Exception {
    put("r", bytes("0123456789"));

    assertThat(get("r", 7, 100)).isEqualTo(bytes("789"));
  }

  @Test
  void rangedGetStartingAtOrAfterEndIsEmpty() throws Exception {
    put("r", bytes("0123456789"));

    assertThat(get("r", 10, 5)).isEmpty();
    assertThat(get("r", 1000, 5)).isEmpty();
  }

  @Test
  void zeroLengthRangeIsEmpty() throws Exception {
    put("r", bytes("0123456789"));

    assertThat(get("r", 4, 0)).isEmpty();
  }

  // ---- missing objects -----------------------------------------------------------------------

  @Test
  void getOfMissingKeyFailsNotFoundNamingTheCloud() throws Exception {
    CloudException e = awaitFailure(driver.get(key("no/such/key")));

    assertThat(e.kind()).isEqualTo(CloudException.Kind.NOT_FOUND);
    assertThat(e.cloudId()).isEqualTo(driver.id());
    assertThat(e.isRetryable()).isFalse();
  }

  @Test
  void rangedGetOfMissingKeyFailsNotFound() throws Exception {
    CloudException e = awaitFailure(driver.get(key("missing"), Optional.of(ByteRange.of(0, 10))));

    assertThat(e.kind()).isEqualTo(CloudException.Kind.NOT_FOUND);
    assertThat(e.cloudId()).isEqualTo(driver.id());
  }

  // ---- conditional gets ----------------------------------------------------------------------

  private TaggedGet tagged(String name, Optional<String> ifNoneMatch) throws Exception {
    return await(driver.getTagged(key(name), Optional.empty(), ifNoneMatch));
  }

  /** The bytes of an answer that must carry them, with a tag if the driver gives tags. */
  private byte[] changed(TaggedGet answer) {
    assertThat(answer.unchanged()).as("answered unchanged: %s", answer).isFalse();
    assertThat(answer.tag().isPresent())
        .as("a tag exactly when the driver says it gives tags: %s", answer)
        .isEqualTo(driver.conditionalGets());
    assertThat(answer.bytes()).isEqualTo(answer.data().length);
    return answer.data();
  }

  private void assertUnchanged(TaggedGet answer, String tag) {
    assertThat(answer.unchanged()).as("expected unchanged, was %s", answer).isTrue();
    assertThat(answer.tag()).contains(tag);
    assertThat(answer.bytes()).isZero();
  }

  /**
   * A driver that gives tags: a tagged get gives one; sent back, the same tag is answered
   * "unchanged" (no bytes) while the object keeps its content; after an overwrite the old tag gets
   * the new bytes and a new tag, which is then answered "unchanged" in turn.
   */
  @Test
  void conditionalGetAnswersUnchangedExactlyWhileTheObjectKeepsItsTag() throws Exception {
    Assumptions.assumeTrue(
        driver.conditionalGets(), "driver " + driver.id() + " gives no tags (plain gets)");
    put("cond/log", bytes("first log"));
    TaggedGet first = tagged("cond/log", Optional.empty());
    assertThat(changed(first)).isEqualTo(bytes("first log"));
    String tag1 = first.tag().orElseThrow();

    assertUnchanged(tagged("cond/log", Optional.of(tag1)), tag1);
    assertUnchanged(tagged("cond/log", Optional.of(tag1)), tag1);

    put("cond/log", bytes("second, longer log"));
    TaggedGet second = tagged("cond/log", Optional.of(tag1));
    assertThat(changed(second)).isEqualTo(bytes("second, longer log"));
    String tag2 = second.tag().orElseThrow();
    assertThat(tag2).isNotEqualTo(tag1);
    assertUnchanged(tagged("cond/log", Optional.of(tag2)), tag2);

    // Another object's tag, for other content, is not this object's.
    put("cond/other", bytes("another object"));
    String otherTag = tagged("cond/other", Optional.empty()).tag().orElseThrow();
    assertThat(changed(tagged("cond/log", Optional.of(otherTag))))
        .isEqualTo(bytes("second, longer log"));
  }

  /**
   * A ranged conditional get gives the range of the bytes (clipped as a plain ranged get is) with
   * the whole object's tag, and "unchanged" for that tag; an empty object gives no bytes.
   */
  @Test
  void rangedConditionalGetGivesTheRangeAndTheWholeObjectsTag() throws Exception {
    put("cond/ranged", bytes("0123456789"));
    TaggedGet whole = tagged("cond/ranged", Optional.empty());
    TaggedGet head =
        await(
            driver.getTagged(
                key("cond/ranged"), Optional.of(ByteRange.of(0, 4)), Optional.empty()));
    assertThat(changed(head)).isEqualTo(bytes("0123"));
    assertThat(head.tag()).isEqualTo(whole.tag());
    TaggedGet clipped =
        await(
            driver.getTagged(
                key("cond/ranged"), Optional.of(ByteRange.of(0, 1000)), Optional.empty()));
    assertThat(changed(clipped)).isEqualTo(bytes("0123456789"));
    if (driver.conditionalGets()) {
      String tag = whole.tag().orElseThrow();
      assertUnchanged(
          await(
              driver.getTagged(
                  key("cond/ranged"), Optional.of(ByteRange.of(0, 4)), Optional.of(tag))),
          tag);
    }
    put("cond/empty", new byte[0]);
    TaggedGet empty =
        await(
            driver.getTagged(
                key("cond/empty"), Optional.of(ByteRange.of(0, 1000)), Optional.empty()));
    assertThat(empty.unchanged()).isFalse();
    assertThat(empty.data()).isEmpty();
  }

  /** A tag the driver never gave is not matched: the answer is the object, with its tag. */
  @Test
  void conditionalGetWithAForeignTagGivesTheBytes() throws Exception {
    Assumptions.assumeTrue(
        driver.conditionalGets(), "driver " + driver.id() + " gives no tags (plain gets)");
    byte[] big = randomBytes(300_000, 41); // above the drivers' finish-when-cancelled size
    put("cond/big", big);
    for (String foreign : List.of("\"0123456789abcdef\"", "1", "not-a-tag", "*x")) {
      TaggedGet answer = tagged("cond/big", Optional.of(foreign));
      assertThat(changed(answer)).as("tag %s", foreign).isEqualTo(big);
      assertUnchanged(tagged("cond/big", answer.tag()), answer.tag().orElseThrow());
    }
  }

  /** Missing objects are NOT_FOUND, with or without a tag, also one the object had. */
  @Test
  void conditionalGetOfAMissingObjectIsNotFound() throws Exception {
    CloudException e =
        awaitFailure(driver.getTagged(key("cond/missing"), Optional.empty(), Optional.empty()));
    assertThat(e.kind()).isEqualTo(CloudException.Kind.NOT_FOUND);
    assertThat(e.cloudId()).isEqualTo(driver.id());

    put("cond/deleted", bytes("soon gone"));
    TaggedGet before = tagged("cond/deleted", Optional.empty());
    await(driver.delete(key("cond/deleted")));
    Optional<String> tag = before.tag().or(() -> Optional.of("some-tag"));
    assertThat(awaitFailure(driver.getTagged(key("cond/deleted"), Optional.empty(), tag)).kind())
        .isEqualTo(CloudException.Kind.NOT_FOUND);
  }

  /**
   * Empty objects get tags too; rewriting the same bytes may keep the tag (a content hash) or not
   * (a version), but an "unchanged" answer always stands for the bytes the tag was given for; the
   * array returned belongs to the caller.
   */
  @Test
  void conditionalGetOfEmptyAndRewrittenObjects() throws Exception {
    put("cond/empty", new byte[0]);
    TaggedGet empty = tagged("cond/empty", Optional.empty());
    assertThat(changed(empty)).isEmpty();
    if (empty.tag().isPresent()) {
      assertUnchanged(tagged("cond/empty", empty.tag()), empty.tag().get());
    }

    put("cond/same", bytes("same bytes"));
    TaggedGet first = tagged("cond/same", Optional.empty());
    byte[] mine = changed(first);
    mine[0] = 'X';
    put("cond/same", bytes("same bytes"));
    TaggedGet again = tagged("cond/same", first.tag());
    if (!again.unchanged()) {
      assertThat(changed(again)).isEqualTo(bytes("same bytes"));
    }
    assertThat(get("cond/same")).isEqualTo(bytes("same bytes"));
  }

  /**
   * A driver that gives no tags answers a tagged get as a plain get: the bytes, no tag, never
   * "unchanged", whatever tag is sent.
   */
  @Test
  void aDriverWithoutTagsAnswersTaggedGetsAsPlainGets() throws Exception {
    Assumptions.assumeFalse(driver.conditionalGets(), "driver " + driver.id() + " gives tags");
    put("plain/log", bytes("a log"));
    for (Optional<String> tag : List.of(Optional.<String>empty(), Optional.of("\"some-tag\""))) {
      TaggedGet answer = tagged("plain/log", tag);
      assertThat(answer.unchanged()).isFalse();
      assertThat(answer.tag()).isEmpty();
      assertThat(answer.data()).isEqualTo(bytes("a log"));
    }
  }

  @Test
  void cancellingConditionalGetsLeavesDriverUsable() throws Exception {
    put("cond/k", randomBytes(400_000, 42));
    Optional<String> tag = tagged("cond/k", Optional.empty()).tag();
    driver.getTagged(key("cond/k"), Optional.empty(), Optional.empty()).cancel(true);
    driver.getTagged(key("cond/k"), Optional.empty(), tag).cancel(true);
    driver.getTagged(key("cond/missing"), Optional.empty(), tag).cancel(true);

    assertThat(changed(tagged("cond/k", Optional.empty()))).isEqualTo(randomBytes(400_000, 42));
    if (tag.isPresent()) {
      assertUnchanged(tagged("cond/k", tag), tag.get());
    }
  }

  // ---- conditional puts ----------------------------------------------------------------------

  private boolean putIf(String name, byte[] data, Optional<String> ifMatch) throws Exception {
    return await(driver.putIfMatch(key(name), data, ifMatch));
  }

  private String tagOf(String name) throws Exception {
    return tagged(name, Optional.empty()).tag().orElseThrow();
  }

  /** A driver that offers conditional puts gives tags, so a caller has something to send. */
  @Test
  void aDriverWithConditionalPutsGivesTags() throws Exception {
    Assumptions.assumeTrue(
        driver.conditionalPuts(), "driver " + driver.id() + " offers no conditional puts");
    put("cput/tagged", bytes("x"));
    assertThat(tagged("cput/tagged", Optional.empty()).tag()).isPresent();
  }

  /** With no tag, a conditional put stores only where no object is, and leaves one that is. */
  @Test
  void conditionalPutWithoutATagStoresOnlyWhereNoObjectIs() throws Exception {
    Assumptions.assumeTrue(
        driver.conditionalPuts(), "driver " + driver.id() + " offers no conditional puts");
    assertThat(putIf("cput/new", bytes("first"), Optional.empty())).isTrue();
    assertThat(get("cput/new")).isEqualTo(bytes("first"));
    assertThat(putIf("cput/new", bytes("second"), Optional.empty())).isFalse();
    assertThat(get("cput/new")).isEqualTo(bytes("first"));
    put("cput/empty", new byte[0]);
    assertThat(putIf("cput/empty", bytes("over an empty object"), Optional.empty())).isFalse();
    assertThat(get("cput/empty")).isEmpty();
  }

  /**
   * With the tag of a tagged get, a conditional put stores while the object keeps that content;
   * once another put changed it, or a delete removed it, the old tag no longer matches and nothing
   * is stored.
   */
  @Test
  void conditionalPutStoresOnlyWhileTheObjectKeepsTheTag() throws Exception {
    Assumptions.assumeTrue(
        driver.conditionalPuts(), "driver " + driver.id() + " offers no conditional puts");
    put("cput/log", bytes("log 1"));
    String tag1 = tagOf("cput/log");
    assertThat(putIf("cput/log", bytes("log 2, by repair"), Optional.of(tag1))).isTrue();
    assertThat(get("cput/log")).isEqualTo(bytes("log 2, by repair"));
    // The object changed since tag1 was given: the conditional put with it stores nothing.
    assertThat(putIf("cput/log", bytes("stale copy"), Optional.of(tag1))).isFalse();
    assertThat(get("cput/log")).isEqualTo(bytes("log 2, by repair"));

    String tag2 = tagOf("cput/log");
    put("cput/log", bytes("log 3, by the writer"));
    assertThat(putIf("cput/log", bytes("stale copy"), Optional.of(tag2))).isFalse();
    assertThat(get("cput/log")).isEqualTo(bytes("log 3, by the writer"));

    // A tag the driver never gave, or another object's, does not match either.
    put("cput/other", bytes("another object"));
    for (String foreign : List.of(tagOf("cput/other"), "\"0123456789abcdef\"", "1", "x")) {
      assertThat(putIf("cput/log", bytes("stale copy"), Optional.of(foreign)))
          .as("tag %s", foreign)
          .isFalse();
    }
    assertThat(get("cput/log")).isEqualTo(bytes("log 3, by the writer"));

    String tag3 = tagOf("cput/log");
    await(driver.delete(key("cput/log")));
    assertThat(putIf("cput/log", bytes("after the delete"), Optional.of(tag3))).isFalse();
    assertThat(awaitFailure(driver.get(key("cput/log"))).kind())
        .isEqualTo(CloudException.Kind.NOT_FOUND);
  }

  /** The array given to a conditional put is the caller's: changing it after does not reach it. */
  @Test
  void conditionalPutDoesNotAliasTheCallersArray() throws Exception {
    Assumptions.assumeTrue(
        driver.conditionalPuts(), "driver " + driver.id() + " offers no conditional puts");
    byte[] mine = bytes("mine");
    assertThat(putIf("cput/alias", mine, Optional.empty())).isTrue();
    mine[0] = 'X';
    assertThat(get("cput/alias")).isEqualTo(bytes("mine"));
  }

  /**
   * Check and store are one step: of many conditional puts sent at once with the same tag, exactly
   * one stores, and the object holds its bytes.
   */
  @Test
  void concurrentConditionalPutsWithOneTagStoreExactlyOnce() throws Exception {
    Assumptions.assumeTrue(
        driver.conditionalPuts(), "driver " + driver.id() + " offers no conditional puts");
    for (Optional<String> condition : List.of(Optional.<String>empty(), Optional.of("tag"))) {
      String name = "cput/race-" + condition.isPresent();
      Optional<String> ifMatch = Optional.empty();
      if (condition.isPresent()) {
        put(name, bytes("start"));
        ifMatch = Optional.of(tagOf(name));
      }
      List<CompletableFuture<Boolean>> racing = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        racing.add(driver.putIfMatch(key(name), bytes("contender " + i), ifMatch));
      }
      List<Integer> winners = new ArrayList<>();
      for (int i = 0; i < racing.size(); i++) {
        if (await(racing.get(i))) {
          winners.add(i);
        }
      }
      assertThat(winners).as("winners with %s", condition).hasSize(1);
      assertThat(get(name)).isEqualTo(bytes("contender " + winners.get(0)));
    }
  }

  /**
   * A driver without conditional puts says so, and a conditional put fails clearly, storing
   * nothing.
   */
  @Test
  void aDriverWithoutConditionalPutsRefusesThemClearly() throws Exception {
    Assumptions.assumeFalse(
        driver.conditionalPuts(), "driver " + driver.id() + " offers conditional puts");
    CloudException e =
        awaitFailure(driver.putIfMatch(key("cput/refused"), bytes("x"), Optional.empty()));
    assertThat(e.cloudId()).isEqualTo(driver.id());
    assertThat(e.getMessage()).contains("conditional puts");
    assertThat(awaitFailure(driver.get(key("cput/refused"))).kind())
        .isEqualTo(CloudException.Kind.NOT_FOUND);
  }

  // ---- delete --------------------------------------------------------------------------------

  @Test
  void deleteRemovesObject() throws Exception {
    put("doomed", bytes("x"));
    put("kept", bytes("y"));

    await(driver.delete(key("doomed")));

    assertThat(awaitFailure(driver.get(key("doomed"))).kind())
        .isEqualTo(CloudException.Kind.NOT_FOUND);
    assertThat(names("")).containsExactly("kept");
  }

  @Test
  void deleteOfMissingKeySucceeds() throws Exception {
    await(driver.delete(key("never/written")));
    put("twice", bytes("x"));
    await(driver.delete(key("twice")));
    await(driver.delete(key("twice")));

    assertThat(names("")).isEmpty();
  }

  @Test
  void objectCanBeWrittenAgainAfterDelete() throws Exception {
    put("phoenix", bytes("one"));
    await(driver.delete(key("phoenix")));
    put("phoenix", bytes("two"));

    assertThat(get("phoenix")).isEqualTo(bytes("two"));
  }

  // ---- list ----------------------------------------------------------------------------------

  @Test
  void listOfEmptyNamespaceIsEmpty() throws Exception {
    assertThat(await(driver.list(""))).isEmpty();
  }

  @Test
  void listReturnsAllObjectsInAscendingOrderWithSizes() throws Exception {
    put("b", bytes("22"));
    put("a/2", bytes("1"));
    put("a", bytes("333"));
    put("a/1", bytes(""));
    put("a-b", bytes("4444"));

    assertThat(await(driver.list("")))
        .containsExactly(
            new ObjectInfo(key("a"), 3),
            new ObjectInfo(key("a-b"), 4),
            new ObjectInfo(key("a/1"), 0),
            new ObjectInfo(key("a/2"), 1),
            new ObjectInfo(key("b"), 2));
  }

  @Test
  void listMatchesByStringPrefixAcrossDirectories() throws Exception {
    for (String name :
        List.of(
            "meta/p0/log",
            "meta/p0/log2",
            "meta/p1/log",
            "meta/p10/x/y",
            "meta",
            "metal",
            "data/v1")) {
      put(name, bytes(name));
    }

    assertThat(names("meta/"))
        .containsExactly("meta/p0/log", "meta/p0/log2", "meta/p1/log", "meta/p10/x/y");
    assertThat(names("meta/p1")).containsExactly("meta/p1/log", "meta/p10/x/y");
    assertThat(names("meta/p0/log")).containsExactly("meta/p0/log", "meta/p0/log2");
    assertThat(names("meta"))
        .containsExactly(
            "meta", "meta/p0/log", "meta/p0/log2", "meta/p1/log", "meta/p10/x/y", "metal");
    assertThat(names("data/v1")).containsExactly("data/v1");
    assertThat(names("data/v1/")).isEmpty();
    assertThat(names("nothing")).isEmpty();
    assertThat(names("meta/p2/")).isEmpty();
  }

  @Test
  void listHandlesDeepAndLongNames() throws Exception {
    String longSegment = "x".repeat(300);
    String deep = "d1/d2/d3/d4/d5/d6/" + longSegment + "/leaf";
    put(deep, bytes("deep"));
    put(longSegment, bytes("long"));

    assertThat(names(""))
        .containsExactly("d1/d2/d3/d4/d5/d6/" + longSegment + "/leaf", longSegment);
    assertThat(names("d1/d2/d3/d4/d5/d6/" + "x".repeat(250))).containsExactly(deep);
    assertThat(get(deep)).isEqualTo(bytes("deep"));
  }

  // ---- paged list ----------------------------------------------------------------------------

  private ListPage page(String prefix, String startAfter, int limit) throws Exception {
    return await(driver.list(prefix, startAfter, limit));
  }

  private static List<String> names(ListPage page) {
    List<String> out = new ArrayList<>();
    for (ObjectInfo info : page.objects()) {
      out.add(info.key().value());
    }
    return out;
  }

  /** Every name under {@code prefix}, walked {@code limit} at a time; checks each page's bound. */
  private List<String> walk(String prefix, int limit) throws Exception {
    List<String> out = new ArrayList<>();
    String after = "";
    for (int pages = 0; pages < 1000; pages++) {
      ListPage p = page(prefix, after, limit);
      assertThat(p.objects().size()).as("page size").isLessThanOrEqualTo(limit);
      out.addAll(names(p));
      if (!p.more()) {
        return out;
      }
      assertThat(p.objects()).as("a page that says more follow is not empty").isNotEmpty();
      after = p.last();
    }
    throw new AssertionError("listing of '" + prefix + "' did not end in 1000 pages");
  }

  @Test
  void pagedListOfEmptyNamespaceIsOneEmptyPage() throws Exception {
    ListPage p = page("", "", 10);
    assertThat(p.objects()).isEmpty();
    assertThat(p.more()).isFalse();
  }

  @Test
  void pagesWalkTheListingInOrderAtEveryPageSize() throws Exception {
    // No name is a directory prefix of another, as in RafeStore's layout: MinIO's StartAfter skips
    // "p/a/1" after "p/a-b" when an object "p/a" also exists (its file tree holds both).
    List<String> all = new ArrayList<>();
    for (String name :
        List.of("p/a-b", "p/a.x", "p/a/1", "p/a/2", "p/b", "p/c/d/e", "p/z", "q", "o/x")) {
      put(name, bytes(name));
      if (name.startsWith("p/")) {
        all.add(name);
      }
    }
    all.sort(null);
    for (int limit : List.of(1, 2, 3, all.size(), all.size() + 1, 1000)) {
      assertThat(walk("p/", limit)).as("pages of %d", limit).containsExactlyElementsOf(all);
    }
    assertThat(walk("", 2)).hasSize(all.size() + 2);
  }

  @Test
  void aPageStartsStrictlyAfterItsStartAndKeepsToThePrefix() throws Exception {
    for (String name : List.of("k/1", "k/2", "k/3", "k/4", "l/1")) {
      put(name, bytes("x"));
    }
    ListPage first = page("k/", "", 2);
    assertThat(names(first)).containsExactly("k/1", "k/2");
    assertThat(first.more()).isTrue();
    assertThat(first.objects().get(1)).isEqualTo(new ObjectInfo(key("k/2"), 1));

    ListPage second = page("k/", "k/2", 2);
    assertThat(names(second)).containsExactly("k/3", "k/4");

    // A start that is not an object name, and one before the prefix.
    assertThat(names(page("k/", "k/25", 10))).containsExactly("k/3", "k/4");
    assertThat(names(page("k/", "a", 10))).containsExactly("k/1", "k/2", "k/3", "k/4");
    // After the last one: an empty, final page; and a start past the prefix.
    ListPage end = page("k/", "k/4", 10);
    assertThat(end.objects()).isEmpty();
    assertThat(end.more()).isFalse();
    assertThat(page("k/", "l", 10).objects()).isEmpty();
  }

  @Test
  void aLimitOfOneGivesOneObjectPerPage() throws Exception {
    put("one/a", bytes("1"));
    put("one/b", bytes("22"));
    ListPage p = page("one/", "", 1);
    assertThat(p.objects()).containsExactly(new ObjectInfo(key("one/a"), 1));
    assertThat(p.more()).isTrue();
    ListPage q = page("one/", "one/a", 1);
    assertThat(q.objects()).containsExactly(new ObjectInfo(key("one/b"), 2));
    assertThat(walk("one/", 1)).containsExactly("one/a", "one/b");
  }

  @Test
  void aPageLimitBelowOneIsRefusedNamingIt() {
    assertThatThrownBy(() -> driver.list("", "", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit");
  }

  // ---- concurrency ---------------------------------------------------------------------------

  @Test
  void concurrentPutsToDifferentKeysAllLand() throws Exception {
    int threads = 8;
    int perThread = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> tasks = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        tasks.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    String name = "concurrent/t" + thread + "/k" + i;
                    await(driver.put(key(name), randomBytes(1000 + i, thread * 100L + i)));
                  }
                  return null;
                }));
      }
      for (Future<?> task : tasks) {
        task.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(await(driver.list("concurrent/"))).hasSize(threads * perThread);
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < perThread; i++) {
        assertThat(get("concurrent/t" + t + "/k" + i))
            .isEqualTo(randomBytes(1000 + i, t * 100L + i));
      }
    }
  }

  // ---- cancellation --------------------------------------------------------------------------

  @Test
  void cancellingInFlightRequestsLeavesDriverUsable() throws Exception {
    put("existing", bytes("value"));

    driver.put(key("cancelled/put"), randomBytes(100_000, 1)).cancel(true);
    driver.get(key("existing")).cancel(true);
    driver.get(key("missing")).cancel(true);
    driver.delete(key("existing-not")).cancel(true);
    driver.list("").cancel(true);

    put("after", bytes("works"));
    assertThat(get("after")).isEqualTo(bytes("works"));
    assertThat(get("existing")).isEqualTo(bytes("value"));
    assertThat(names("")).contains("existing", "after");
  }

  @Test
  void cancellingCompletedFutureChangesNothing() throws Exception {
    CompletableFuture<Void> done = driver.put(key("k"), bytes("v"));
    await(done);
    done.cancel(true);
    CompletableFuture<byte[]> read = driver.get(key("k"));
    await(read);
    read.cancel(true);

    assertThat(get("k")).isEqualTo(bytes("v"));
  }

  // ---- close ---------------------------------------------------------------------------------

  @Test
  void operationsAfterCloseFailWithCloudException() throws Exception {
    put("k", bytes("v"));
    driver.close();
    driver.close(); // idempotent

    assertThat(awaitFailure(driver.put(key("k2"), bytes("v"))).cloudId()).isEqualTo(driver.id());
    assertThat(awaitFailure(driver.get(key("k"))).cloudId()).isEqualTo(driver.id());
    assertThat(
            awaitFailure(driver.getTagged(key("k"), Optional.empty(), Optional.empty())).cloudId())
        .isEqualTo(driver.id());
    assertThat(awaitFailure(driver.delete(key("k"))).cloudId()).isEqualTo(driver.id());
    assertThat(awaitFailure(driver.list("")).cloudId()).isEqualTo(driver.id());
  }
}
