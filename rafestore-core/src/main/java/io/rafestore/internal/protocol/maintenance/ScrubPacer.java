package io.rafestore.internal.protocol.maintenance;

import io.rafestore.Pricing;
import io.rafestore.ScrubOptions;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The scrubber's pace: every request it sends goes through {@link #wrap} of a cloud's driver, which
 * queues it and starts it only when
 *
 * <ul>
 *   <li>no other scrub request is in flight on that cloud (one at a time per cloud),
 *   <li>what the scrub has spent (requests, egress bytes, dollars priced with each cloud's {@link
 *       Pricing}) is within each budget's rate, and
 *   <li>the client has no foreground operation in flight, or this request has waited {@link
 *       ScrubOptions#MAX_YIELD} for them (if the options ask to yield).
 * </ul>
 *
 * <p>The budgets are enforced as the earliest time each may be spent again (a "theoretical arrival
 * time" per budget): a request advances the request budget's by one request's share of an hour and
 * the dollar budget's by its price's; its downloaded bytes, known when it ends, advance the egress
 * budget's and the dollar budget's. A budget's time never lags the clock, so time spent idle is not
 * saved up: over any stretch, the scrub spends at most the rate times the stretch plus one request.
 * Queued requests start oldest first. Each request is bounded from when it is sent, not from when
 * it was queued ({@code requestLimit}): the context the scrubber runs in bounds nothing itself.
 *
 * <p>Thread-safe. The wrapped drivers state only what they change ({@link ForwardingCloud}).
 */
final class ScrubPacer {
  private static final double NANOS_PER_HOUR = 3.6e12;

  private final Context ctx;
  private final ScrubOptions options;
  private final Duration requestLimit;
  private final Spent spent;

  /** Requests waiting, oldest first, and the clouds with one in flight. */
  private final Deque<Pending<?>> queue = new ArrayDeque<>();

  private final Set<String> busy = new HashSet<>();
  private long sequence;

  /** The earliest scheduler time (ns) each budget may be spent again. */
  private double requestsAt;

  private double bytesAt;
  private double dollarsAt;

  private io.rafestore.Scheduler.Cancellable timer;
  private long timerAt = Long.MAX_VALUE;
  private boolean waitingForIdle;
  private boolean pumping;
  private boolean again;

  /** What the scrub spent, by cloud and in all; told to the scrubber as it happens. */
  interface Spent {
    void request(String cloud, double dollars);

    void bytes(String cloud, long bytes, double dollars);
  }

  ScrubPacer(Context ctx, ScrubOptions options, Duration requestLimit, Spent spent) {
    this.ctx = ctx;
    this.options = options;
    this.requestLimit = requestLimit;
    this.spent = spent;
    long now = ctx.settings.scheduler().nanoTime();
    requestsAt = now;
    bytesAt = now;
    dollarsAt = now;
  }

  /** {@code c}'s driver with every request paced. */
  CloudDriver wrap(Cloud c) {
    return new Paced(c.driver(), ctx.settings.pricing(c.id()));
  }

  private enum Kind {
    PUT,
    GET,
    LIST,
    FREE
  }

  /** One queued request. */
  private static final class Pending<T> {
    final long seq;
    final String cloud;
    final Pricing price;
    final Kind kind;
    final Supplier<CompletableFuture<T>> call;
    final ToLongFunction<T> bytesDown;
    final CompletableFuture<T> result = new CompletableFuture<>();
    long queuedAt;

    Pending(
        long seq,
        String cloud,
        Pricing price,
        Kind kind,
        Supplier<CompletableFuture<T>> call,
        ToLongFunction<T> bytesDown) {
      this.seq = seq;
      this.cloud = cloud;
      this.price = price;
      this.kind = kind;
      this.call = call;
      this.bytesDown = bytesDown;
    }

    double dollars() {
      return switch (kind) {
        case PUT -> price.perPut();
        case GET -> price.perGet();
        case LIST -> price.perList();
        case FREE -> 0;
      };
    }
  }

  private <T> CompletableFuture<T> submit(
      String cloud,
      Pricing price,
      Kind kind,
      Supplier<CompletableFuture<T>> call,
      ToLongFunction<T> bytesDown) {
    Pending<T> p;
    synchronized (this) {
      p = new Pending<>(sequence++, cloud, price, kind, call, bytesDown);
      p.queuedAt = now();
      queue.add(p);
    }
    pump();
    return p.result;
  }

  private long now() {
    return ctx.settings.scheduler().nanoTime();
  }

  /**
   * Starts every request that may start now, oldest first; arms a timer (or waits for the client to
   * be idle) for the next one otherwise. Re-entrant calls (a request that completes synchronously)
   * only ask the running pump to look again, so the stack does not grow.
   */
  private void pump() {
    synchronized (this) {
      if (pumping) {
        again = true;
        return;
      }
      pumping = true;
    }
    while (true) {
      Pending<?> go = null;
      synchronized (this) {
        again = false;
        queue.removeIf(p -> p.result.isDone());
        long now = now();
        Pending<?> first = null;
        for (Pending<?> p : queue) {
          if (!busy.contains(p.cloud)) {
            first = p;
            break;
          }
        }
        if (first != null) {
          long readyAt = (long) Math.ceil(Math.max(requestsAt, Math.max(bytesAt, dollarsAt)));
          long yieldUntil = first.queuedAt + ScrubOptions.MAX_YIELD.toNanos();
          if (readyAt > now) {
            arm(readyAt);
          } else if (options.yieldToForeground() && ctx.foreground.busy() && now < yieldUntil) {
            arm(yieldUntil);
            waitForIdle();
          } else {
            go = first;
            queue.remove(first);
            busy.add(first.cloud);
            requestsAt = Math.max(requestsAt, now) + NANOS_PER_HOUR / options.requestsPerHour();
            dollarsAt =
                Math.max(dollarsAt, now)
                    + first.dollars() * NANOS_PER_HOUR / options.dollarsPerHour();
          }
        }
        if (go == null && !again) {
          pumping = false;
          return;
        }
      }
      if (go != null) {
        start(go);
      }
    }
  }

  private <T> void start(Pending<T> p) {
    spent.request(p.cloud, p.dollars());
    CompletableFuture<T> request;
    try {
      request = p.call.get();
    } catch (RuntimeException e) {
      request = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> sent = request;
    io.rafestore.Scheduler.Cancellable limit =
        ctx.settings
            .scheduler()
            .schedule(
                requestLimit,
                () -> {
                  if (p.result.completeExceptionally(
                      new TimeoutException(
                          p.cloud + " did not answer a scrub request within " + requestLimit))) {
                    sent.cancel(true);
                  }
                });
    // The caller's cancellation reaches the request.
    Futures.onEnd(
        p.result,
        (r, e) -> {
          if (p.result.isCancelled()) {
            sent.cancel(true);
          }
        });
    Futures.onEnd(
        sent,
        (r, e) -> {
          limit.cancel();
          long bytes = 0;
          if (e == null) {
            try {
              bytes = p.bytesDown.applyAsLong(r);
            } catch (RuntimeException ignored) {
              bytes = 0;
            }
          }
          double dollars = p.price.egress(bytes);
          synchronized (this) {
            long now = now();
            if (bytes > 0) {
              bytesAt =
                  Math.max(bytesAt, now) + bytes * NANOS_PER_HOUR / options.egressBytesPerHour();
              dollarsAt =
                  Math.max(dollarsAt, now) + dollars * NANOS_PER_HOUR / options.dollarsPerHour();
            }
            busy.remove(p.cloud);
          }
          if (bytes > 0) {
            spent.bytes(p.cloud, bytes, dollars);
          }
          if (e == null) {
            p.result.complete(r);
          } else {
            p.result.completeExceptionally(Futures.unwrap(e));
          }
          pump();
        });
  }

  /** A timer that pumps at {@code at} (ns), unless one is armed earlier. Holds the lock. */
  private void arm(long at) {
    if (timer != null && timerAt <= at) {
      return;
    }
    if (timer != null) {
      timer.cancel();
    }
    timerAt = at;
    timer =
        ctx.settings
            .scheduler()
            .schedule(
                Duration.ofNanos(Math.max(0, at - now())),
                () -> {
                  synchronized (this) {
                    timer = null;
                    timerAt = Long.MAX_VALUE;
                  }
                  pump();
                });
  }

  /** Pumps again when the client's foreground operations are done. Holds the lock. */
  private void waitForIdle() {
    if (waitingForIdle) {
      return;
    }
    waitingForIdle = true;
    Futures.onEnd(
        ctx.foreground.idle(),
        (r, e) -> {
          synchronized (this) {
            waitingForIdle = false;
          }
          pump();
        });
  }

  /** Stops: every queued request fails, none starts after this. */
  void close() {
    List<Pending<?>> left;
    synchronized (this) {
      left = List.copyOf(queue);
      queue.clear();
      if (timer != null) {
        timer.cancel();
        timer = null;
      }
    }
    for (Pending<?> p : left) {
      p.result.cancel(true);
    }
  }

  /** A cloud's driver whose every request goes through the pacer. */
  private final class Paced extends ForwardingCloud {
    private final Pricing price;

    Paced(CloudDriver delegate, Pricing price) {
      super(delegate);
      this.price = price;
    }

    private <T> CompletableFuture<T> paced(
        Kind kind, Supplier<CompletableFuture<T>> call, ToLongFunction<T> bytesDown) {
      return submit(id(), price, kind, call, bytesDown);
    }

    @Override
    public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
      return paced(Kind.PUT, () -> delegate().put(key, data), r -> 0);
    }

    @Override
    public CompletableFuture<byte[]> get(
        ObjectKey key, java.util.Optional<io.rafestore.spi.ByteRange> range) {
      return paced(Kind.GET, () -> delegate().get(key, range), b -> b.length);
    }

    @Override
    public boolean conditionalGets() {
      return delegate().conditionalGets();
    }

    /** A conditional get is paced as a get; an unchanged answer brings no bytes down. */
    @Override
    public CompletableFuture<io.rafestore.spi.TaggedGet> getTagged(
        ObjectKey key,
        java.util.Optional<io.rafestore.spi.ByteRange> range,
        java.util.Optional<String> ifNoneMatch) {
      return paced(
          Kind.GET,
          () -> delegate().getTagged(key, range, ifNoneMatch),
          io.rafestore.spi.TaggedGet::bytes);
    }

    @Override
    public boolean conditionalPuts() {
      return delegate().conditionalPuts();
    }

    /** A conditional put is paced as a put. */
    @Override
    public CompletableFuture<Boolean> putIfMatch(
        ObjectKey key, byte[] data, java.util.Optional<String> ifMatch) {
      return paced(Kind.PUT, () -> delegate().putIfMatch(key, data, ifMatch), r -> 0);
    }

    @Override
    public CompletableFuture<Void> delete(ObjectKey key) {
      return paced(Kind.FREE, () -> delegate().delete(key), r -> 0);
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      return paced(Kind.LIST, () -> delegate().list(prefix), r -> 0);
    }

    @Override
    public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
      return paced(Kind.LIST, () -> delegate().list(prefix, startAfter, limit), r -> 0);
    }

    @Override
    protected CompletableFuture<MultipartUpload> beginUpload(
        ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> call) {
      return paced(Kind.PUT, call, r -> 0);
    }

    @Override
    protected CompletableFuture<Void> putPart(
        ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
      return paced(Kind.PUT, () -> call.apply(data), r -> 0);
    }

    @Override
    protected CompletableFuture<Void> completeUpload(
        ObjectKey key, int count, Supplier<CompletableFuture<Void>> call) {
      return paced(Kind.PUT, call, r -> 0);
    }

    @Override
    protected CompletableFuture<Void> abortUpload(
        ObjectKey key, Supplier<CompletableFuture<Void>> call) {
      return paced(Kind.FREE, call, r -> 0);
    }

    @Override
    public void close() {
      // The client owns the drivers; the scrubber never closes them.
    }
  }
}
