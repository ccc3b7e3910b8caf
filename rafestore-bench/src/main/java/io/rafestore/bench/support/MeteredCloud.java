package io.rafestore.bench.support;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Counts what crosses one point of a cloud's path, for PaperBench, at either of two places:
 *
 * <ul>
 *   <li><b>At the cloud</b>, under the WAN emulator: the bytes the cloud sent for every get it
 *       served ({@link #bytesServed()}), whether or not the client later cancelled the request
 *       (readM's request to the cloud beyond its quorum, a losing hedge, a wasted anticipated
 *       fetch). That is the egress a provider bills, or an upper bound of it: a request cancelled
 *       while its answer is still on the way may in reality stop part of it. A request the client
 *       cancelled before it reached the cloud (within half a round trip) sent nothing.
 *   <li><b>At the client</b>, over the WAN emulator: requests in flight and when one last started
 *       or ended ({@link #inFlight()}, {@link #lastActivityNanos()}), so the harness can wait until
 *       the client is idle (its lingering metadata puts ended, its packer done) before it reads the
 *       counters.
 * </ul>
 *
 * Adds no fault and changes no answer. Thread-safe.
 */
public final class MeteredCloud extends ForwardingCloud {
  private final AtomicInteger inFlight = new AtomicInteger();
  private final LongAdder bytesServed = new LongAdder();
  private final LongAdder getsServed = new LongAdder();
  private final LongSupplier nanoClock;
  private volatile long lastActivityNanos;

  /** A meter whose activity times are {@link System#nanoTime()} (real time). */
  public MeteredCloud(CloudDriver delegate) {
    this(delegate, System::nanoTime);
  }

  /**
   * A meter whose activity times come from {@code nanoClock}: a {@link
   * io.rafestore.Scheduler#nanoTime()}, so that on virtual time the harness waits for virtual
   * quiet.
   */
  public MeteredCloud(CloudDriver delegate, LongSupplier nanoClock) {
    super(delegate);
    this.nanoClock = nanoClock;
    this.lastActivityNanos = nanoClock.getAsLong();
  }

  /** Requests started through this meter and not yet ended (answered, failed or cancelled). */
  public int inFlight() {
    return inFlight.get();
  }

  /** The meter's clock (default {@link System#nanoTime()}) when a request last started or ended. */
  public long lastActivityNanos() {
    return lastActivityNanos;
  }

  /** Bytes of every get answered by the driver below, cancelled afterwards or not. */
  public long bytesServed() {
    return bytesServed.sum();
  }

  /** Gets answered by the driver below. */
  public long getsServed() {
    return getsServed.sum();
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    return track(delegate().put(key, data));
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    CompletableFuture<byte[]> f = delegate().get(key, range);
    // Counted when the driver answers, before whoever asked can cancel it (the emulator calls the
    // driver from its timer and only then lets the answer cross the link).
    f.thenAccept(
        b -> {
          getsServed.increment();
          bytesServed.add(b.length);
        });
    return track(f);
  }

  @Override
  public boolean conditionalGets() {
    return delegate().conditionalGets();
  }

  /**
   * A conditional get, counted as {@link #get}: a served get whose bytes are those the cloud sent,
   * none for an "unchanged" answer.
   */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    CompletableFuture<TaggedGet> f = delegate().getTagged(key, range, ifNoneMatch);
    f.thenAccept(
        t -> {
          getsServed.increment();
          bytesServed.add(t.bytes());
        });
    return track(f);
  }

  @Override
  public boolean conditionalPuts() {
    return delegate().conditionalPuts();
  }

  /** A conditional put, counted as {@link #put}: in flight until it ends, stored or not. */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    return track(delegate().putIfMatch(key, data, ifMatch));
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return track(delegate().delete(key));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return track(delegate().list(prefix));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    return track(delegate().list(prefix, startAfter, limit));
  }

  @Override
  protected CompletableFuture<MultipartUpload> beginUpload(
      ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> call) {
    return track(call.get());
  }

  @Override
  protected CompletableFuture<Void> putPart(
      ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
    return track(call.apply(data));
  }

  @Override
  protected CompletableFuture<Void> completeUpload(
      ObjectKey key, int count, Supplier<CompletableFuture<Void>> call) {
    return track(call.get());
  }

  @Override
  protected CompletableFuture<Void> abortUpload(
      ObjectKey key, Supplier<CompletableFuture<Void>> call) {
    return track(call.get());
  }

  /**
   * Counts {@code f} in flight until it ends. Returns {@code f} itself, so a caller's cancellation
   * reaches the driver below unchanged.
   */
  private <T> CompletableFuture<T> track(CompletableFuture<T> f) {
    inFlight.incrementAndGet();
    lastActivityNanos = nanoClock.getAsLong();
    f.whenComplete(
        (r, e) -> {
          inFlight.decrementAndGet();
          lastActivityNanos = nanoClock.getAsLong();
        });
    return f;
  }
}
