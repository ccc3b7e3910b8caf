package io.rafestore.clouds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.rafestore.CloudStats;
import io.rafestore.internal.cloud.AccountingCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * {@link CloudDriver#getTagged}: the memory cloud's content tags, the default for drivers that
 * cannot, the WAN emulator (an unchanged answer crosses the link with no bytes) and the client's
 * accounting (a get, no bytes down).
 */
class ConditionalGetTest {
  private static final ObjectKey KEY = ObjectKey.of("m/k/alice");
  private static final int MB = 1 << 20;

  @Test
  void aRangedConditionalGetClipsTheBytesAndTagsTheWholeObject() {
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(KEY, new byte[] {1, 2, 3, 4, 5}).join();
    String whole =
        mem.getTagged(KEY, Optional.empty(), Optional.empty()).join().tag().orElseThrow();
    TaggedGet head =
        mem.getTagged(KEY, Optional.of(io.rafestore.spi.ByteRange.of(0, 3)), Optional.empty())
            .join();
    assertThat(head.data()).containsExactly(1, 2, 3);
    assertThat(head.tag()).contains(whole);
    // Past the end: clipped as a plain ranged get is.
    TaggedGet all =
        mem.getTagged(KEY, Optional.of(io.rafestore.spi.ByteRange.of(0, 100)), Optional.of("x"))
            .join();
    assertThat(all.data()).containsExactly(1, 2, 3, 4, 5);
    assertThat(
            mem.getTagged(KEY, Optional.of(io.rafestore.spi.ByteRange.of(0, 3)), Optional.of(whole))
                .join()
                .unchanged())
        .isTrue();
  }

  @Test
  void memoryCloudAnswersUnchangedExactlyWhileTheContentIsTheSame() {
    MemoryCloud mem = new MemoryCloud("p0");
    assertThat(mem.conditionalGets()).isTrue();
    mem.put(KEY, new byte[] {1, 2, 3}).join();
    TaggedGet first = mem.getTagged(KEY, Optional.empty(), Optional.empty()).join();
    assertThat(first.unchanged()).isFalse();
    assertThat(first.data()).containsExactly(1, 2, 3);
    String tag = first.tag().orElseThrow();

    TaggedGet again = mem.getTagged(KEY, Optional.empty(), Optional.of(tag)).join();
    assertThat(again.unchanged()).isTrue();
    assertThat(again.bytes()).isZero();

    // Rewritten with the same bytes: still unchanged (a content tag). New bytes: a new tag.
    mem.put(KEY, new byte[] {1, 2, 3}).join();
    assertThat(mem.getTagged(KEY, Optional.empty(), Optional.of(tag)).join().unchanged()).isTrue();
    mem.put(KEY, new byte[] {1, 2, 4}).join();
    TaggedGet changed = mem.getTagged(KEY, Optional.empty(), Optional.of(tag)).join();
    assertThat(changed.unchanged()).isFalse();
    assertThat(changed.data()).containsExactly(1, 2, 4);
    assertThat(changed.tag().orElseThrow()).isNotEqualTo(tag);
    // Another tag than the object's: the object in full.
    assertThat(mem.getTagged(KEY, Optional.empty(), Optional.of("other")).join().unchanged())
        .isFalse();

    mem.delete(KEY).join();
    CompletableFuture<TaggedGet> gone = mem.getTagged(KEY, Optional.empty(), Optional.of(tag));
    assertThat(gone).isCompletedExceptionally();
    try {
      gone.join();
    } catch (java.util.concurrent.CompletionException e) {
      assertThat(((CloudException) e.getCause()).kind()).isEqualTo(CloudException.Kind.NOT_FOUND);
    }
  }

  @Test
  void aDriverThatCannotGivesTheObjectWithoutATag() {
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(KEY, new byte[] {7}).join();
    // A decorator that overrides nothing: the SPI's default, through its own get.
    CloudDriver plain = new io.rafestore.spi.ForwardingCloud(mem) {};
    assertThat(plain.conditionalGets()).isFalse();
    TaggedGet t = plain.getTagged(KEY, Optional.empty(), Optional.of("anything")).join();
    assertThat(t.unchanged()).isFalse();
    assertThat(t.data()).containsExactly(7);
    assertThat(t.tag()).isEmpty();
  }

  @Test
  void faultInjectionAppliesItsFaultsToConditionalGetsAndPuts() {
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(KEY, new byte[] {7}).join();
    String tag = mem.getTagged(KEY, Optional.empty(), Optional.empty()).join().tag().orElseThrow();

    FaultyCloud faulty = new FaultyCloud(mem, new VirtualScheduler(), 1);
    assertThat(faulty.conditionalGets()).isTrue();
    assertThat(faulty.conditionalPuts()).isTrue();
    assertThat(faulty.getTagged(KEY, Optional.empty(), Optional.of(tag)).join().unchanged())
        .isTrue();
    faulty.crash();
    assertThat(faulty.getTagged(KEY, Optional.empty(), Optional.of(tag)))
        .isCompletedExceptionally();
    assertThat(faulty.putIfMatch(KEY, new byte[] {8}, Optional.of(tag))).isCompletedExceptionally();
    assertThat(mem.get(KEY).join()).containsExactly(7);

    ByzantineCloud liar = new ByzantineCloud(mem, 1);
    assertThat(liar.conditionalGets()).isTrue();
    assertThat(liar.conditionalPuts()).isTrue();
    // A stale liar asked with a tag the object no longer has says "unchanged".
    liar.behave(ByzantineCloud.Behaviour.STALE);
    mem.put(KEY, new byte[] {9}).join();
    TaggedGet stale = liar.getTagged(KEY, Optional.empty(), Optional.of(tag)).join();
    assertThat(stale.unchanged()).isTrue();
    // A corrupting liar's tagged answer carries corrupted bytes with the true tag.
    liar.behave(ByzantineCloud.Behaviour.CORRUPT);
    TaggedGet corrupt = liar.getTagged(KEY, Optional.empty(), Optional.empty()).join();
    assertThat(corrupt.data()).isNotEqualTo(new byte[] {9});
    assertThat(corrupt.tag())
        .isEqualTo(mem.getTagged(KEY, Optional.empty(), Optional.empty()).join().tag());
    // A dropping liar acknowledges a conditional put it never made.
    liar.behave(ByzantineCloud.Behaviour.DROP_WRITES);
    assertThat(liar.putIfMatch(KEY, new byte[] {10}, Optional.empty()).join()).isTrue();
    assertThat(mem.get(KEY).join()).containsExactly(9);
    assertThat(liar.liesTold()).isEqualTo(3);
  }

  @Test
  void anUnchangedAnswerCrossesTheEmulatedLinkInOneRoundTrip() throws ExecutionException {
    VirtualScheduler clock = new VirtualScheduler();
    WanEmulator net = WanEmulator.builder(clock).build();
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(KEY, new byte[MB]).join();
    CloudDriver cloud =
        net.wrap(
            mem, WanEmulator.Link.rtt(Duration.ofMillis(100)).bandwidthBitsPerSecond(8_000_000));
    assertThat(cloud.conditionalGets()).isTrue();

    long t0 = clock.nanoTime();
    TaggedGet full = clock.runUntilDone(cloud.getTagged(KEY, Optional.empty(), Optional.empty()));
    // One round trip and 1 MiB at 8 Mbit/s.
    assertThat((clock.nanoTime() - t0) / 1e9).isCloseTo(0.1 + MB * 8 / 8e6, within(1e-6));

    long t1 = clock.nanoTime();
    TaggedGet same = clock.runUntilDone(cloud.getTagged(KEY, Optional.empty(), full.tag()));
    assertThat(same.unchanged()).isTrue();
    assertThat((clock.nanoTime() - t1) / 1e9).isCloseTo(0.1, within(1e-6));
  }

  @Test
  void theClientCountsAnUnchangedAnswerAsAGetWithNoBytesDown() {
    MemoryCloud mem = new MemoryCloud("p0");
    mem.put(KEY, new byte[100]).join();
    AccountingCloud cloud = new AccountingCloud(mem);
    assertThat(cloud.conditionalGets()).isTrue();
    TaggedGet full = cloud.getTagged(KEY, Optional.empty(), Optional.empty()).join();
    cloud.getTagged(KEY, Optional.empty(), full.tag()).join();
    assertThat(cloud.snapshot()).isEqualTo(new CloudStats("p0", 0, 2, 0, 0, 0, 100, 0, 0));
  }
}
