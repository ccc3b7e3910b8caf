package io.rafestore.internal.protocol.selection;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.Futures;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Feeds the duration of every successful put and get into the {@link LatencyModel}, and of every
 * cancelled one that had already run longer than predicted: a slow cloud's requests are the ones
 * cancelled as useless (its upload loses to writeDf's extra, its read to a hedge), and ignoring
 * them would keep its estimate optimistic forever. Such a request took at least that long, so the
 * elapsed time is recorded as a (conservative) sample.
 *
 * <p>It also keeps the model's count of requests and bytes in flight to the cloud ({@link
 * LatencyModel#sent}, {@link LatencyModel#ended}): counted when a put, part or get is handed to the
 * driver, uncounted exactly once when its future ends, whether answered, failed or cancelled, or at
 * once if the driver throws instead of returning a future. A put counts its data; a get the bytes
 * its caller expects ({@link #get(CloudDriver, ObjectKey, Optional, long)}), else the bytes its
 * range asks for, else none. A log's GET is bounded by a range of the largest log allowed but moves
 * a few KiB: its caller says so, or every read would count maxMetadataBytes in flight to each cloud
 * it asks.
 */
public final class MeasuredCloud extends ForwardingCloud {
  private final LatencyModel model;

  public MeasuredCloud(CloudDriver delegate, LatencyModel model) {
    super(delegate);
    this.model = model;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    return measured(data, bytes -> delegate().put(key, bytes));
  }

  @Override
  public boolean conditionalPuts() {
    return delegate().conditionalPuts();
  }

  /** A conditional put is measured as a put of its bytes. */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    return measured(data, bytes -> delegate().putIfMatch(key, bytes, ifMatch));
  }

  /** The bytes a caller on this thread expects from the get it is making through a decorator. */
  private static final ThreadLocal<Long> EXPECTED = new ThreadLocal<>();

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Long hint = EXPECTED.get();
    long expected = hint != null ? hint : range.map(ByteRange::length).orElse(0L);
    return get(key, range, expected);
  }

  /**
   * A get of {@code key} through {@code driver}, telling a {@link MeasuredCloud} that about {@code
   * expectedBytes} will come back (a whole object's size is known to the caller from its signed
   * entry, not to the driver), so they count as in flight; any other driver gets a plain get.
   */
  public static CompletableFuture<byte[]> get(
      CloudDriver driver, ObjectKey key, Optional<ByteRange> range, long expectedBytes) {
    if (driver instanceof MeasuredCloud m) {
      return m.get(key, range, expectedBytes);
    }
    // A decorator above the measurement (a background context's pacer): the hint reaches it if the
    // decorator calls through on this thread; one that defers the call counts the request only.
    Long previous = EXPECTED.get();
    EXPECTED.set(expectedBytes);
    try {
      return driver.get(key, range);
    } finally {
      if (previous == null) {
        EXPECTED.remove();
      } else {
        EXPECTED.set(previous);
      }
    }
  }

  @Override
  public boolean conditionalGets() {
    return delegate().conditionalGets();
  }

  /**
   * A conditional get through {@code driver}, as {@link #get(CloudDriver, ObjectKey, Optional,
   * long)}: a {@link MeasuredCloud} counts {@code expectedBytes} in flight and records the bytes
   * that came back (none for an unchanged answer).
   */
  public static CompletableFuture<TaggedGet> getTagged(
      CloudDriver driver,
      ObjectKey key,
      Optional<ByteRange> range,
      Optional<String> ifNoneMatch,
      long expectedBytes) {
    if (driver instanceof MeasuredCloud m) {
      return m.getTagged(key, range, ifNoneMatch, expectedBytes);
    }
    Long previous = EXPECTED.get();
    EXPECTED.set(expectedBytes);
    try {
      return driver.getTagged(key, range, ifNoneMatch);
    } finally {
      if (previous == null) {
        EXPECTED.remove();
      } else {
        EXPECTED.set(previous);
      }
    }
  }

  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Long hint = EXPECTED.get();
    return getTagged(key, range, ifNoneMatch, hint != null ? hint : 0L);
  }

  private CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch, long expected) {
    long start = model.scheduler().nanoTime();
    model.sent(id(), expected);
    CompletableFuture<TaggedGet> f;
    try {
      f = Futures.relay(delegate().getTagged(key, range, ifNoneMatch));
    } catch (RuntimeException | Error e) {
      model.ended(id(), expected);
      throw e;
    }
    Futures.onEnd(
        f,
        (t, e) -> {
          model.ended(id(), expected);
          if (e == null) {
            model.record(id(), t.bytes(), model.scheduler().nanoTime() - start);
          } else {
            censored(f, expected, start);
          }
        });
    return f;
  }

  private CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range, long expected) {
    long start = model.scheduler().nanoTime();
    model.sent(id(), expected);
    CompletableFuture<byte[]> f;
    try {
      f = Futures.relay(delegate().get(key, range));
    } catch (RuntimeException | Error e) {
      model.ended(id(), expected);
      throw e;
    }
    Futures.onEnd(
        f,
        (b, e) -> {
          model.ended(id(), expected);
          if (e == null) {
            model.record(id(), b.length, model.scheduler().nanoTime() - start);
          } else {
            censored(f, expected, start);
          }
        });
    return f;
  }

  private void measure(CompletableFuture<?> f, long bytes, long start) {
    if (!f.isCompletedExceptionally()) {
      model.record(id(), bytes, model.scheduler().nanoTime() - start);
    } else {
      censored(f, bytes, start);
    }
  }

  /** A cancelled request that already ran past its prediction is a lower bound on its time. */
  private void censored(CompletableFuture<?> f, long bytes, long start) {
    if (!f.isCancelled()) {
      return;
    }
    long elapsed = model.scheduler().nanoTime() - start;
    if (elapsed > model.predict(id(), bytes).toNanos()) {
      model.record(id(), bytes, elapsed);
    }
  }

  /**
   * Each part of a native upload is measured like a put of its size (begin, complete and abort are
   * small requests, left unmeasured like deletes).
   */
  @Override
  protected CompletableFuture<Void> putPart(
      ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
    return measured(data, call);
  }

  private <T> CompletableFuture<T> measured(
      byte[] data, Function<byte[], CompletableFuture<T>> call) {
    long start = model.scheduler().nanoTime();
    model.sent(id(), data.length);
    CompletableFuture<T> f;
    try {
      f = Futures.relay(call.apply(data));
    } catch (RuntimeException | Error e) {
      model.ended(id(), data.length);
      throw e;
    }
    Futures.onEnd(
        f,
        (r, e) -> {
          model.ended(id(), data.length);
          measure(f, data.length, start);
        });
    return f;
  }
}
