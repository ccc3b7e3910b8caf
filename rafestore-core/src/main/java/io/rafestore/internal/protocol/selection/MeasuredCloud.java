package io.rafestore.internal.protocol.selection;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
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
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    long start = model.scheduler().nanoTime();
    CompletableFuture<byte[]> f = Futures.relay(delegate().get(key, range));
    long expected = range.map(r -> r.length()).orElse(0L);
    f.whenComplete(
        (b, e) -> {
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

  private CompletableFuture<Void> measured(
      byte[] data, Function<byte[], CompletableFuture<Void>> call) {
    long start = model.scheduler().nanoTime();
    CompletableFuture<Void> f = Futures.relay(call.apply(data));
    f.whenComplete((r, e) -> measure(f, data.length, start));
    return f;
  }
}
