package io.rafestore.internal.cloud;

import io.rafestore.CloudRequest;
import io.rafestore.CloudStats;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.Futures;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Counts what is asked of a driver: the numbers behind {@link CloudStats}. The client wraps every
 * driver in one of these.
 *
 * <p>A request is counted when it is started, whatever becomes of it; its payload bytes up (a put's
 * data) are counted then too, its bytes down (a get's answer) when the answer arrives. A request
 * that completes exceptionally counts as <em>cancelled</em> if the caller cancelled it (or the
 * driver reports a cancellation) and as an <em>error</em> otherwise. Cancelling a returned future
 * cancels the driver's future.
 *
 * <p>Given a sink, every request is also reported to it as a {@link CloudRequest} when it ends,
 * timed on the given clock: the per-cloud figures of the listener and the metrics.
 *
 * <p>Native multipart uploads ({@link #multipart()}) are counted as the clouds bill them: starting
 * and completing an upload are puts, each part is a put with its bytes up, an abort is a delete.
 *
 * <p><b>Fault model.</b> Adds none: answers, errors and lies of the wrapped driver pass through
 * unchanged. <b>Thread-safety.</b> Safe for concurrent use; counters are {@link LongAdder}s, so a
 * {@link #snapshot()} taken while requests run may mix counts from just before and just after a
 * request, but never loses one.
 */
public final class AccountingCloud extends ForwardingCloud {
  private final LongAdder puts = new LongAdder();
  private final LongAdder gets = new LongAdder();
  private final LongAdder deletes = new LongAdder();
  private final LongAdder lists = new LongAdder();
  private final LongAdder bytesUp = new LongAdder();
  private final LongAdder bytesDown = new LongAdder();
  private final LongAdder cancelled = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final LongAdder speculations = new LongAdder();
  private final LongAdder speculationsKept = new LongAdder();
  private final LongAdder speculationsWasted = new LongAdder();
  private final LongAdder speculativeBytes = new LongAdder();
  private final LongAdder routedSmall = new LongAdder();
  private final LongAdder routedBulk = new LongAdder();
  private final LongAdder steals = new LongAdder();
  private final LongAdder stealsWon = new LongAdder();
  private final LongAdder stealsWasted = new LongAdder();
  private final LongSupplier clock;
  private final Consumer<CloudRequest> sink;

  /** Counts the requests made to {@code delegate} through this wrapper. */
  public AccountingCloud(CloudDriver delegate) {
    this(delegate, () -> 0, null);
  }

  /**
   * Counts the requests made to {@code delegate} and reports each to {@code sink} as it ends, timed
   * by {@code clock} (nanoseconds). The sink must not throw.
   */
  public AccountingCloud(CloudDriver delegate, LongSupplier clock, Consumer<CloudRequest> sink) {
    super(delegate);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sink = sink;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    // Reject bad arguments before counting, so the counts only hold requests really made.
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    puts.increment();
    bytesUp.add(data.length);
    return watch(CloudRequest.Kind.PUT, data.length, delegate().put(key, data));
  }

  @Override
  public boolean conditionalPuts() {
    return delegate().conditionalPuts();
  }

  /** A conditional put is a put: its bytes go up whether or not the condition holds. */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(ifMatch, "ifMatch");
    puts.increment();
    bytesUp.add(data.length);
    return watch(CloudRequest.Kind.PUT, data.length, delegate().putIfMatch(key, data, ifMatch));
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    gets.increment();
    // Count the bytes before the caller sees them, so a snapshot after a get includes them.
    return watch(
        CloudRequest.Kind.GET,
        -1,
        Futures.relay(
            delegate().get(key, range),
            b -> {
              bytesDown.add(b.length);
              return b;
            }));
  }

  @Override
  public boolean conditionalGets() {
    return delegate().conditionalGets();
  }

  /** A conditional get is a get; an unchanged answer brings no bytes down. */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    gets.increment();
    return watch(
        CloudRequest.Kind.GET,
        -1,
        Futures.relay(
            delegate().getTagged(key, range, ifNoneMatch),
            t -> {
              bytesDown.add(t.bytes());
              return t;
            }));
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    deletes.increment();
    return watch(CloudRequest.Kind.DELETE, 0, delegate().delete(key));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    lists.increment();
    return watch(CloudRequest.Kind.LIST, 0, delegate().list(prefix));
  }

  @Override
  protected CompletableFuture<MultipartUpload> beginUpload(
      ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> call) {
    puts.increment();
    return watch(CloudRequest.Kind.PUT, 0, call.get());
  }

  @Override
  protected CompletableFuture<Void> putPart(
      ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
    puts.increment();
    bytesUp.add(data.length);
    return watch(CloudRequest.Kind.PUT, data.length, call.apply(data));
  }

  @Override
  protected CompletableFuture<Void> completeUpload(
      ObjectKey key, int count, Supplier<CompletableFuture<Void>> call) {
    puts.increment();
    return watch(CloudRequest.Kind.PUT, 0, call.get());
  }

  /** An abort is billed as a delete. */
  @Override
  protected CompletableFuture<Void> abortUpload(
      ObjectKey key, Supplier<CompletableFuture<Void>> call) {
    deletes.increment();
    return watch(CloudRequest.Kind.DELETE, 0, call.get());
  }

  /** One page is one list request. */
  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    lists.increment();
    return watch(CloudRequest.Kind.LIST, 0, delegate().list(prefix, startAfter, limit));
  }

  /**
   * Counts how the request ends and reports it to the sink. {@code bytes} is the payload sent, or
   * -1 for a get, whose bytes are the answer's.
   */
  private <T> CompletableFuture<T> watch(
      CloudRequest.Kind kind, long bytes, CompletableFuture<T> inner) {
    long start = sink == null ? 0 : clock.getAsLong();
    // Read while the request is being started, on the thread that starts it (RequestTenant).
    String tenant = sink == null ? null : RequestTenant.current();
    CompletableFuture<T> outer = Futures.relay(inner);
    Futures.onEnd(
        outer,
        (r, e) -> {
          CloudRequest.Outcome outcome = CloudRequest.Outcome.OK;
          if (e != null) {
            if (outer.isCancelled() || Futures.isCancellation(e)) {
              cancelled.increment();
              outcome = CloudRequest.Outcome.CANCELLED;
            } else {
              errors.increment();
              outcome = outcomeOf(Futures.unwrap(e));
            }
          }
          if (sink != null) {
            long size =
                bytes >= 0
                    ? bytes
                    : r instanceof byte[] b ? b.length : r instanceof TaggedGet t ? t.bytes() : 0;
            sink.accept(
                new CloudRequest(
                    delegate().id(),
                    kind,
                    size,
                    java.time.Duration.ofNanos(Math.max(0, clock.getAsLong() - start)),
                    outcome,
                    tenant));
          }
        });
    return outer;
  }

  /** How a failed request ended, as far as its exception tells. */
  static CloudRequest.Outcome outcomeOf(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      // java.util.concurrent's, java.net.http's, java.net's Socket... and the SDKs' own.
      if (t.getClass().getSimpleName().endsWith("TimeoutException")) {
        return CloudRequest.Outcome.TIMEOUT;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    if (error instanceof CloudException c) {
      switch (c.kind()) {
        case NOT_FOUND:
          return CloudRequest.Outcome.NOT_FOUND;
        case THROTTLED:
          return CloudRequest.Outcome.THROTTLED;
        default:
          return CloudRequest.Outcome.FAILED;
      }
    }
    return CloudRequest.Outcome.FAILED;
  }

  /**
   * Counts an anticipated data fetch of {@code bytes} bytes that a read started on this cloud's log
   * (the read's own requests go to the holders and are counted there).
   */
  public void speculationStarted(long bytes) {
    speculations.increment();
    speculativeBytes.add(bytes);
  }

  /** Counts how an anticipated fetch started on this cloud's log ended: kept or wasted. */
  public void speculationSettled(boolean kept) {
    (kept ? speculationsKept : speculationsWasted).increment();
  }

  /** Counts a read routed to this cloud first: a small one, or a large or part-by-part one. */
  public void routed(boolean small) {
    (small ? routedSmall : routedBulk).increment();
  }

  /** Counts a read this cloud was also asked for because it was idle (a steal). */
  public void stealStarted() {
    steals.increment();
  }

  /** Counts how a steal on this cloud ended: its verified answer won, or it was wasted. */
  public void stealSettled(boolean won) {
    (won ? stealsWon : stealsWasted).increment();
  }

  /** The counts so far. */
  public CloudStats snapshot() {
    return new CloudStats(
            delegate().id(),
            puts.sum(),
            gets.sum(),
            deletes.sum(),
            lists.sum(),
            bytesUp.sum(),
            bytesDown.sum(),
            cancelled.sum(),
            errors.sum(),
            speculations.sum(),
            speculationsKept.sum(),
            speculationsWasted.sum(),
            speculativeBytes.sum())
        .withRouting(
            routedSmall.sum(), routedBulk.sum(), steals.sum(), stealsWon.sum(), stealsWasted.sum());
  }

  @Override
  public String toString() {
    return "AccountingCloud[" + snapshot() + "]";
  }
}
