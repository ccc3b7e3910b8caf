package io.rafestore.spi.support;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * {@link CompletableFuture} plumbing for drivers and decorators: passing a future on so that
 * cancelling it reaches the request behind it (as {@link io.rafestore.spi.CloudDriver}'s
 * cancellation contract asks), and unwrapping the exceptions {@code CompletableFuture} wraps.
 *
 * <p>A failure passes through these helpers without new exceptions: they watch a future with {@link
 * #onEnd}, not {@code whenComplete}. {@code whenComplete} completes the future it returns with the
 * failure wrapped in a new {@link CompletionException} (whose stack trace the JVM fills in) even
 * when nobody reads that future, so a "not found" relayed through a driver, the accounting and the
 * latency model took about a dozen such wrappers, several microseconds each: about a third of the
 * client CPU of a read of a changed key whose reader trusts a writer with no log of it. Stateless
 * and thread-safe.
 */
public final class Futures {
  private Futures() {}

  /**
   * A new future that completes as {@code inner} does and, when cancelled, cancels {@code inner}:
   * the way every decorator hands a driver's future to its caller so cancellation reaches the
   * driver.
   */
  public static <T> CompletableFuture<T> relay(CompletableFuture<T> inner) {
    CompletableFuture<T> outer = newFuture();
    onEnd(inner, completer(outer));
    return cancelsInner(outer, inner);
  }

  /**
   * A new incomplete future like {@code new CompletableFuture<>()}, except that {@link
   * CompletableFuture#cancel cancel} completes it with a {@link CancellationException} that has no
   * stack trace (so {@link CompletableFuture#isCancelled} is true, and callers see a cancellation
   * as before). {@code CompletableFuture.cancel} fills in a stack trace for every future it
   * cancels; a read that cancels its slowest cloud's requests cancels one future per layer (the
   * latency model, the accounting, the driver), each deeper in the stack than the last, and did so
   * several times per read. The relays here and the WAN emulator's requests are made with this; a
   * driver may make its own futures with it too. The stack trace of a cancellation would only name
   * who cancelled, which the caller knows.
   */
  public static <T> CompletableFuture<T> newFuture() {
    return new CheaplyCancelled<>();
  }

  /** See {@link #newFuture}. */
  private static final class CheaplyCancelled<T> extends CompletableFuture<T> {
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = !isDone() && completeExceptionally(new Cancelled());
      return cancelled || isCancelled();
    }
  }

  /** A cancellation without a stack trace (see {@link #newFuture}). */
  private static final class Cancelled extends CancellationException {
    private static final long serialVersionUID = 1L;

    Cancelled() {
      super("cancelled");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  /**
   * Calls {@code callback} with {@code future}'s value or failure (as {@code whenComplete} gives
   * them) when it ends, at once if it has. Unlike {@code future.whenComplete(callback)} it makes no
   * new future that would hold the failure wrapped in a new {@link CompletionException}: the way to
   * watch a future whose outcome goes elsewhere. An exception {@code callback} throws is dropped,
   * as it would be in the future {@code whenComplete} returns when nobody reads that.
   */
  public static <T> void onEnd(
      CompletableFuture<T> future, BiConsumer<? super T, ? super Throwable> callback) {
    future.handle(
        (value, error) -> {
          callback.accept(value, error);
          return null;
        });
  }

  /**
   * Runs {@code then} once, when every future of {@code futures} has ended (at once if all have, or
   * if there are none), however each ended. Unlike watching {@code CompletableFuture.allOf}, which
   * wraps a failed or cancelled member's exception in a new {@link CompletionException}, it makes
   * no exception. An exception {@code then} throws is dropped, as in {@link #onEnd}.
   */
  public static void onAllEnded(
      java.util.Collection<? extends CompletableFuture<?>> futures, Runnable then) {
    java.util.concurrent.atomic.AtomicInteger left =
        new java.util.concurrent.atomic.AtomicInteger(futures.size() + 1);
    Runnable one =
        () -> {
          if (left.decrementAndGet() == 0) {
            then.run();
          }
        };
    for (CompletableFuture<?> f : futures) {
      onEnd(f, (v, e) -> one.run());
    }
    // The extra count keeps futures that end while the loop above runs from running it early.
    try {
      one.run();
    } catch (RuntimeException dropped) {
      // As onEnd drops what its callback throws.
    }
  }

  /**
   * Like {@link #relay(CompletableFuture)}, but the new future completes with {@code map} applied
   * to {@code inner}'s value (an exception thrown by {@code map} fails it). Cancelling it still
   * cancels {@code inner}, which a plain {@code inner.thenApply(map)} would not do.
   */
  public static <T, U> CompletableFuture<U> relay(
      CompletableFuture<T> inner, Function<? super T, ? extends U> map) {
    CompletableFuture<U> outer = newFuture();
    onEnd(
        inner,
        (value, error) -> {
          if (error != null) {
            outer.completeExceptionally(unwrap(error));
            return;
          }
          U mapped;
          try {
            mapped = map.apply(value);
          } catch (Throwable t) {
            outer.completeExceptionally(t);
            return;
          }
          outer.complete(mapped);
        });
    return cancelsInner(outer, inner);
  }

  /**
   * Like {@link #relay(CompletableFuture)}, but a failure of {@code inner} reaches the new future
   * translated by {@code translate} (unwrapped first): how a driver turns its SDK's exceptions into
   * {@code CloudException}s while cancellation still reaches the SDK's request.
   */
  public static <T> CompletableFuture<T> relayTranslating(
      CompletableFuture<T> inner, Function<Throwable, ? extends Throwable> translate) {
    CompletableFuture<T> outer = newFuture();
    onEnd(
        inner,
        (v, e) -> {
          if (e == null) {
            outer.complete(v);
          } else {
            outer.completeExceptionally(translate.apply(unwrap(e)));
          }
        });
    return cancelsInner(outer, inner);
  }

  /**
   * Like {@link #relay(CompletableFuture, Function)}, but for either outcome: when {@code inner}
   * ends, {@code next} is given its value or its failure (unwrapped; the other null) and the new
   * future completes as the future {@code next} returns does. Cancelling the new future cancels
   * {@code inner}. How a driver decides, once a request ends, what its caller hears (a multipart
   * part ending after its upload was aborted releases itself and is refused).
   */
  public static <T, U> CompletableFuture<U> relayOutcome(
      CompletableFuture<T> inner,
      BiFunction<? super T, Throwable, ? extends CompletableFuture<U>> next) {
    CompletableFuture<U> outer = newFuture();
    onEnd(
        inner,
        (v, e) -> {
          CompletableFuture<U> then;
          try {
            then = e == null ? next.apply(v, null) : next.apply(null, unwrap(e));
          } catch (Throwable t) {
            outer.completeExceptionally(t);
            return;
          }
          if (then == null) {
            outer.completeExceptionally(
                new NullPointerException("relayOutcome: next returned no future"));
            return;
          }
          onEnd(then, completer(outer));
        });
    return cancelsInner(outer, inner);
  }

  /**
   * Like {@code first.thenCompose(next)}, but ending the new future from outside (cancelling it, or
   * completing it exceptionally: an operation timeout) reaches the request {@code next} started:
   * the future {@code next} returned is cancelled if it has started, and {@code next} is not called
   * if {@code first} has not ended yet. {@code first} itself is never cancelled (it may be shared:
   * a multipart upload's begin, a part's bytes several uploads wait for, a key's turn). A plain
   * {@code thenCompose} future, cancelled or failed, leaves the second request running.
   */
  public static <T, U> CompletableFuture<U> compose(
      CompletableFuture<T> first, Function<? super T, ? extends CompletableFuture<U>> next) {
    CompletableFuture<U> outer = newFuture();
    onEnd(
        first,
        (v, e) -> {
          if (e != null) {
            outer.completeExceptionally(unwrap(e));
            return;
          }
          if (outer.isDone()) {
            return;
          }
          CompletableFuture<U> then;
          try {
            then = next.apply(v);
          } catch (Throwable t) {
            outer.completeExceptionally(t);
            return;
          }
          if (then == null) {
            outer.completeExceptionally(
                new NullPointerException("compose: next returned no future"));
            return;
          }
          onEnd(then, completer(outer));
          onEnd(
              outer,
              (r, x) -> {
                if (x != null) {
                  then.cancel(true);
                }
              });
        });
    return outer;
  }

  /** Makes cancelling {@code outer} cancel {@code inner}; returns {@code outer}. */
  private static <U> CompletableFuture<U> cancelsInner(
      CompletableFuture<U> outer, CompletableFuture<?> inner) {
    onEnd(
        outer,
        (r, e) -> {
          if (outer.isCancelled()) {
            inner.cancel(true);
          }
        });
    return outer;
  }

  /** A callback that completes {@code target} with the outcome it is given, unwrapping. */
  public static <T> BiConsumer<T, Throwable> completer(CompletableFuture<T> target) {
    return (value, error) -> {
      if (error == null) {
        target.complete(value);
      } else {
        target.completeExceptionally(unwrap(error));
      }
    };
  }

  /** Strips {@link CompletionException} and {@link ExecutionException} wrappers. */
  public static Throwable unwrap(Throwable t) {
    Throwable cur = t;
    while ((cur instanceof CompletionException || cur instanceof ExecutionException)
        && cur.getCause() != null) {
      cur = cur.getCause();
    }
    return cur;
  }

  /** Whether {@code t} (unwrapped) is a cancellation. */
  public static boolean isCancellation(Throwable t) {
    return unwrap(t) instanceof CancellationException;
  }
}
