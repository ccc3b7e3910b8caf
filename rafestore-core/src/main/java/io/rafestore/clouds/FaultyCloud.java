package io.rafestore.clouds;

import io.rafestore.Scheduler;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Injects benign (crash and omission) faults into a driver, switchable at run time: the cloud
 * crashes (every call fails {@code UNAVAILABLE} at once), fails a fraction of calls, hangs (calls
 * never answer), or answers late; {@link #heal()} makes it correct again. Faults can be limited to
 * some {@link Operation}s with {@link #affecting}; the others pass through untouched. For lying
 * clouds see {@link ByzantineCloud}; the two stack.
 *
 * <p>A failed, crashed or hung call never reaches the wrapped driver. A hung call completes only
 * when its caller cancels it (then it completes as cancelled and nothing of it is kept) or when
 * this cloud is closed (then it fails {@code UNAVAILABLE}); healing does not release calls that
 * already hang, as a dead connection stays dead. Delays run on the injected {@link Scheduler};
 * cancelling a delayed call cancels its timer, or the wrapped driver's future if the call has
 * started. Which calls fail is drawn from a generator seeded at construction, so the same calls in
 * the same order fail the same way.
 *
 * <p>The delegate's native multipart upload ({@link #multipart()}) gets the same faults: beginning
 * an upload, each part and completing it are {@link Operation#PUT}s, aborting is a {@link
 * Operation#DELETE}; so a crashed cloud fails every part and a hung one never completes.
 *
 * <p>Conditional gets ({@link #getTagged}) are {@link Operation#GET}s and conditional puts ({@link
 * #putIfMatch}) {@link Operation#PUT}s, each offered when the delegate offers it.
 *
 * <p>Thread-safe: the mode can be switched from any thread while calls are in flight; each call
 * obeys the mode in force when it was made.
 */
public final class FaultyCloud extends ForwardingCloud {

  /** The kinds of request a fault can be limited to. */
  public enum Operation {
    PUT,
    GET,
    DELETE,
    LIST
  }

  /** The current behaviour. */
  public enum Mode {
    /** Calls pass through. */
    HEALTHY,
    /** Every call fails {@code UNAVAILABLE} at once. */
    CRASHED,
    /** Each call fails {@code UNAVAILABLE} with a fixed probability. */
    FLAKY,
    /** Calls never answer. */
    HUNG,
    /** Calls reach the cloud after an extra delay. */
    SLOW
  }

  /** One immutable state, swapped whole so that a call sees a consistent mode and parameters. */
  private record State(
      Mode mode, double failProbability, Duration delay, Set<Operation> affected) {}

  private final Scheduler scheduler;
  private final Random random;
  private final Set<CompletableFuture<?>> hanging = ConcurrentHashMap.newKeySet();
  private volatile State state =
      new State(Mode.HEALTHY, 0, Duration.ZERO, EnumSet.allOf(Operation.class));
  private volatile boolean closed;

  /**
   * Wraps {@code delegate}, healthy at first.
   *
   * @param scheduler the timers of {@link #slowDown}
   * @param seed seeds the choice of failing calls in {@link #failFraction}
   */
  public FaultyCloud(CloudDriver delegate, Scheduler scheduler, long seed) {
    super(delegate);
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.random = new Random(seed);
  }

  /** Every later call fails {@code UNAVAILABLE} at once. */
  public FaultyCloud crash() {
    return switchTo(Mode.CRASHED, 0, Duration.ZERO);
  }

  /** Each later call fails {@code UNAVAILABLE} with probability {@code p} in {@code [0, 1]}. */
  public FaultyCloud failFraction(double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("failure fraction must be in [0, 1], was " + p);
    }
    return switchTo(Mode.FLAKY, p, Duration.ZERO);
  }

  /** Later calls never answer unless cancelled. */
  public FaultyCloud hang() {
    return switchTo(Mode.HUNG, 0, Duration.ZERO);
  }

  /** Later calls reach the cloud {@code extra} later ({@code >= 0}). */
  public FaultyCloud slowDown(Duration extra) {
    Objects.requireNonNull(extra, "extra");
    if (extra.isNegative()) {
      throw new IllegalArgumentException("extra delay must be >= 0, was " + extra);
    }
    return switchTo(Mode.SLOW, 0, extra);
  }

  /** Later calls pass through. Calls already hanging keep hanging. */
  public FaultyCloud heal() {
    return switchTo(Mode.HEALTHY, 0, Duration.ZERO);
  }

  /**
   * Limits faults to these operations (all by default); the others pass through. Applies to the
   * current and later modes.
   */
  public FaultyCloud affecting(Operation first, Operation... more) {
    Set<Operation> ops = EnumSet.of(Objects.requireNonNull(first, "operation"), more);
    synchronized (this) {
      State s = state;
      state = new State(s.mode, s.failProbability, s.delay, ops);
    }
    return this;
  }

  /** Extends faults to every operation again. */
  public FaultyCloud affectingAll() {
    return affecting(Operation.PUT, Operation.GET, Operation.DELETE, Operation.LIST);
  }

  private synchronized FaultyCloud switchTo(Mode mode, double p, Duration delay) {
    state = new State(mode, p, delay, state.affected);
    return this;
  }

  /** The current mode. */
  public Mode mode() {
    return state.mode;
  }

  /** Calls hanging now, waiting for a cancel or {@link #close()} (for tests). */
  public int hangingCalls() {
    return hanging.size();
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    State s = state;
    byte[] payload = payload(s, data);
    return call(s, Operation.PUT, () -> delegate().put(key, payload));
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    return call(state, Operation.GET, () -> delegate().get(key, range));
  }

  @Override
  public boolean conditionalGets() {
    return delegate().conditionalGets();
  }

  @Override
  public CompletableFuture<io.rafestore.spi.TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    return call(state, Operation.GET, () -> delegate().getTagged(key, range, ifNoneMatch));
  }

  @Override
  public boolean conditionalPuts() {
    return delegate().conditionalPuts();
  }

  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(ifMatch, "ifMatch");
    State s = state;
    byte[] payload = payload(s, data);
    return call(s, Operation.PUT, () -> delegate().putIfMatch(key, payload, ifMatch));
  }

  /** A delayed put sends the bytes later, and the caller may reuse its array meanwhile: a copy. */
  private static byte[] payload(State s, byte[] data) {
    return s.mode == Mode.SLOW ? data.clone() : data;
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    return call(state, Operation.DELETE, () -> delegate().delete(key));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return call(state, Operation.LIST, () -> delegate().list(prefix));
  }

  @Override
  protected CompletableFuture<MultipartUpload> beginUpload(
      ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> request) {
    return call(state, Operation.PUT, request);
  }

  @Override
  protected CompletableFuture<Void> putPart(
      ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> request) {
    State s = state;
    byte[] payload = s.mode == Mode.SLOW ? data.clone() : data;
    return call(s, Operation.PUT, () -> request.apply(payload));
  }

  @Override
  protected CompletableFuture<Void> completeUpload(
      ObjectKey key, int count, Supplier<CompletableFuture<Void>> request) {
    return call(state, Operation.PUT, request);
  }

  @Override
  protected CompletableFuture<Void> abortUpload(
      ObjectKey key, Supplier<CompletableFuture<Void>> request) {
    return call(state, Operation.DELETE, request);
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    return call(state, Operation.LIST, () -> delegate().list(prefix, startAfter, limit));
  }

  private <T> CompletableFuture<T> call(
      State s, Operation op, Supplier<CompletableFuture<T>> request) {
    if (closed || s.mode == Mode.HEALTHY || !s.affected.contains(op)) {
      return Futures.relay(request.get());
    }
    switch (s.mode) {
      case CRASHED:
        return CompletableFuture.failedFuture(injected("crashed"));
      case FLAKY:
        boolean fail;
        synchronized (random) {
          fail = random.nextDouble() < s.failProbability;
        }
        return fail
            ? CompletableFuture.failedFuture(injected("injected failure"))
            : Futures.relay(request.get());
      case HUNG:
        return hangForever();
      case SLOW:
        return later(s.delay, request);
      default:
        throw new AssertionError(s.mode);
    }
  }

  private CloudException injected(String what) {
    return new CloudException(delegate().id(), CloudException.Kind.UNAVAILABLE, what);
  }

  private <T> CompletableFuture<T> hangForever() {
    CompletableFuture<T> f = new CompletableFuture<>();
    hanging.add(f);
    Futures.onEnd(f, (r, e) -> hanging.remove(f));
    if (closed) {
      f.completeExceptionally(injected("driver is closed"));
    }
    return f;
  }

  /**
   * Starts {@code request} after {@code delay}. Until the timer fires, cancelling the result
   * cancels the timer; after, it cancels the wrapped driver's future.
   */
  private <T> CompletableFuture<T> later(Duration delay, Supplier<CompletableFuture<T>> request) {
    CompletableFuture<T> result = new CompletableFuture<>();
    CompletableFuture<CompletableFuture<T>> started = new CompletableFuture<>();
    Scheduler.Cancellable timer =
        scheduler.schedule(
            delay,
            () -> {
              if (result.isDone()) {
                return;
              }
              CompletableFuture<T> inner;
              try {
                inner = Futures.relay(request.get());
              } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
              }
              started.complete(inner);
              Futures.onEnd(inner, Futures.completer(result));
            });
    Futures.onEnd(
        result,
        (r, e) -> {
          if (result.isCancelled()) {
            timer.cancel();
            started.thenAccept(inner -> inner.cancel(true));
          }
        });
    return result;
  }

  /** Closes the wrapped driver and fails every hanging call {@code UNAVAILABLE}. Idempotent. */
  @Override
  public void close() {
    closed = true;
    for (CompletableFuture<?> f : hanging) {
      f.completeExceptionally(injected("driver is closed"));
    }
    super.close();
  }

  @Override
  public String toString() {
    State s = state;
    return "FaultyCloud[" + id() + ", " + s.mode + " on " + s.affected + "]";
  }
}
