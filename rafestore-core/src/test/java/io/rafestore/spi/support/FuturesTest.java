package io.rafestore.spi.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class FuturesTest {
  @Test
  void composeCancelsTheSecondRequestButNeverTheFirstStage() {
    CompletableFuture<Integer> first = new CompletableFuture<>();
    CompletableFuture<String> second = new CompletableFuture<>();
    CompletableFuture<String> outer = Futures.compose(first, i -> second);

    first.complete(1);
    outer.cancel(true);

    assertThat(second).as("the request next started").isCancelled();
    assertThat(first).isCompletedWithValue(1);
    // A plain thenCompose leaves the second request running when cancelled.
    CompletableFuture<String> running = new CompletableFuture<>();
    first.thenCompose(i -> running).cancel(true);
    assertThat(running).isNotDone();
  }

  @Test
  void composeFailedFromOutsideCancelsTheSecondRequest() {
    CompletableFuture<String> second = new CompletableFuture<>();
    CompletableFuture<String> outer =
        Futures.compose(CompletableFuture.completedFuture(1), i -> second);

    outer.completeExceptionally(new java.util.concurrent.TimeoutException("operation timeout"));

    assertThat(second).isCancelled();
  }

  @Test
  void composeCancelledBeforeTheFirstStageEndsNeverStartsTheSecond() {
    CompletableFuture<Integer> first = new CompletableFuture<>();
    int[] started = {0};
    CompletableFuture<String> outer =
        Futures.compose(
            first,
            i -> {
              started[0]++;
              return CompletableFuture.completedFuture("late");
            });

    outer.cancel(true);
    first.complete(1);

    assertThat(started[0]).isZero();
    assertThat(first).as("a shared first stage stays").isCompletedWithValue(1);
    assertThat(outer).isCancelled();
  }

  @Test
  void composePassesValuesAndFailuresOfEitherStage() {
    CompletableFuture<Integer> first = new CompletableFuture<>();
    CompletableFuture<String> outer =
        Futures.compose(first, i -> CompletableFuture.completedFuture("n=" + i));
    first.complete(2);
    assertThat(outer.join()).isEqualTo("n=2");

    IllegalStateException boom = new IllegalStateException("boom");
    CompletableFuture<String> failedFirst =
        Futures.compose(
            CompletableFuture.<Integer>failedFuture(boom),
            i -> CompletableFuture.completedFuture(""));
    assertThat(failedFirst.handle((v, e) -> e).join()).isSameAs(boom);

    CompletableFuture<String> failedSecond =
        Futures.compose(
            CompletableFuture.completedFuture(1),
            i -> CompletableFuture.<String>failedFuture(boom));
    assertThat(failedSecond.handle((v, e) -> e).join()).isSameAs(boom);

    CompletableFuture<String> thrown =
        Futures.compose(
            CompletableFuture.completedFuture(1),
            i -> {
              throw boom;
            });
    assertThat(thrown.handle((v, e) -> e).join()).isSameAs(boom);
  }

  @Test
  void mappedRelayCompletesWithTheMappedValue() {
    CompletableFuture<Integer> inner = new CompletableFuture<>();
    CompletableFuture<String> outer = Futures.relay(inner, i -> "n=" + i);

    inner.complete(3);

    assertThat(outer.join()).isEqualTo("n=3");
  }

  @Test
  void mappedRelayPassesFailuresUnwrapped() {
    CompletableFuture<Integer> inner = new CompletableFuture<>();
    CompletableFuture<String> outer = Futures.relay(inner, i -> "n=" + i);
    IllegalStateException boom = new IllegalStateException("boom");

    inner.completeExceptionally(boom);

    assertThat(outer).isCompletedExceptionally();
    assertThat(outer.handle((v, e) -> e).join()).isSameAs(boom);
  }

  @Test
  void cancellingTheMappedRelayCancelsTheInnerFuture() {
    CompletableFuture<Integer> inner = new CompletableFuture<>();
    CompletableFuture<String> outer = Futures.relay(inner, i -> "n=" + i);

    outer.cancel(true);

    assertThat(inner).isCancelled();
  }

  @org.junit.jupiter.api.Test
  void relayTranslatingMapsFailuresAndPassesCancellationOn() {
    java.util.concurrent.CompletableFuture<String> inner =
        new java.util.concurrent.CompletableFuture<>();
    java.util.concurrent.CompletableFuture<String> outer =
        Futures.relayTranslating(
            inner, e -> new IllegalStateException("mapped: " + e.getMessage()));
    inner.completeExceptionally(
        new java.util.concurrent.CompletionException(new RuntimeException("sdk")));
    org.assertj.core.api.Assertions.assertThatThrownBy(outer::join)
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("mapped: sdk");

    java.util.concurrent.CompletableFuture<String> pending =
        new java.util.concurrent.CompletableFuture<>();
    Futures.relayTranslating(pending, e -> e).cancel(true);
    org.assertj.core.api.Assertions.assertThat(pending).isCancelled();
  }

  @Test
  void outcomeRelayHandsOnValueOrUnwrappedFailureAndCompletesAsTheNextFuture() {
    CompletableFuture<Integer> ok = new CompletableFuture<>();
    CompletableFuture<String> fromValue =
        Futures.relayOutcome(ok, (v, e) -> CompletableFuture.completedFuture("v=" + v + " e=" + e));
    ok.complete(4);
    assertThat(fromValue.join()).isEqualTo("v=4 e=null");

    CompletableFuture<Integer> failing = new CompletableFuture<>();
    IllegalStateException boom = new IllegalStateException("boom");
    CompletableFuture<Object> fromFailure =
        Futures.relayOutcome(
            failing.thenApply(i -> i + 1), (v, e) -> CompletableFuture.completedFuture(e));
    failing.completeExceptionally(boom);
    assertThat(fromFailure.join()).as("the failure, not its CompletionException").isSameAs(boom);

    CompletableFuture<Integer> refused = new CompletableFuture<>();
    IllegalArgumentException no = new IllegalArgumentException("no");
    CompletableFuture<String> failed =
        Futures.relayOutcome(refused, (v, e) -> CompletableFuture.failedFuture(no));
    refused.complete(1);
    assertThat(failed.handle((v, e) -> e).join()).isSameAs(no);
  }

  @Test
  void cancellingTheOutcomeRelayCancelsTheInnerFuture() {
    CompletableFuture<Integer> inner = new CompletableFuture<>();
    CompletableFuture<String> outer =
        Futures.relayOutcome(inner, (v, e) -> CompletableFuture.completedFuture("x"));

    outer.cancel(true);

    assertThat(inner).isCancelled();
  }

  /**
   * A failure whose {@code toString} counts its calls: {@code new CompletionException(cause)} takes
   * its message from {@code cause.toString()}, so the count is the number of wrappers made of it.
   */
  private static final class Counted extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final java.util.concurrent.atomic.AtomicInteger wrapped =
        new java.util.concurrent.atomic.AtomicInteger();

    Counted() {
      super("not found", null, false, false);
    }

    @Override
    public String toString() {
      wrapped.incrementAndGet();
      return super.toString();
    }
  }

  @Test
  void aFailurePassesThroughEveryRelayWithoutANewWrapper() {
    Counted failure = new Counted();
    CompletableFuture<Integer> inner = new CompletableFuture<>();
    CompletableFuture<Integer> plain = Futures.relay(inner);
    CompletableFuture<String> mapped = Futures.relay(inner, i -> "n=" + i);
    CompletableFuture<Integer> translated = Futures.relayTranslating(inner, e -> e);
    CompletableFuture<Integer> chained = Futures.relay(Futures.relay(Futures.relay(inner)));
    java.util.concurrent.atomic.AtomicReference<Throwable> seen =
        new java.util.concurrent.atomic.AtomicReference<>();
    Futures.onEnd(inner, (v, e) -> seen.set(e));

    inner.completeExceptionally(failure);

    for (CompletableFuture<?> f : java.util.List.of(plain, mapped, translated, chained)) {
      assertThat(f.handle((v, e) -> e).join()).isSameAs(failure);
    }
    assertThat(seen.get()).isSameAs(failure);
    // whenComplete would have made one CompletionException per watcher (two per relay).
    assertThat(failure.wrapped.get()).as("CompletionExceptions made of the failure").isZero();
  }

  @Test
  void onEndSeesTheValueAndDropsWhatTheCallbackThrows() {
    CompletableFuture<String> done = CompletableFuture.completedFuture("v");
    java.util.concurrent.atomic.AtomicReference<String> seen =
        new java.util.concurrent.atomic.AtomicReference<>();

    Futures.onEnd(done, (v, e) -> seen.set(v + "/" + e));
    Futures.onEnd(
        done,
        (v, e) -> {
          throw new IllegalStateException("the caller of onEnd must not see this");
        });

    assertThat(seen.get()).isEqualTo("v/null");
    assertThat(done.join()).isEqualTo("v");
  }

  @Test
  void aMappingThatThrowsFailsTheMappedRelayWithItsException() {
    CompletableFuture<Integer> inner = new CompletableFuture<>();
    IllegalArgumentException bad = new IllegalArgumentException("bad value");
    CompletableFuture<String> outer =
        Futures.relay(
            inner,
            i -> {
              throw bad;
            });

    inner.complete(1);

    assertThat(outer.handle((v, e) -> e).join()).isSameAs(bad);
  }

  /**
   * A read cancels its slowest cloud's requests through every layer above the driver; each layer is
   * a relay, and a relay's cancellation must not cost a stack trace (the driver's own future, a
   * plain one here, still gets its cancel and makes its own exception).
   */
  @Test
  void cancellingAChainOfRelaysReachesTheDriverWithoutAStackTraceAbove() {
    CompletableFuture<Integer> driver = new CompletableFuture<>();
    CompletableFuture<Integer> accounting = Futures.relay(driver);
    CompletableFuture<Integer> translated = Futures.relayTranslating(accounting, t -> t);
    CompletableFuture<String> measured = Futures.relay(translated, i -> "n=" + i);

    assertThat(measured.cancel(true)).isTrue();

    assertThat(driver).isCancelled();
    for (CompletableFuture<?> f : java.util.List.of(accounting, translated, measured)) {
      assertThat(f).isCancelled();
      Throwable cause = f.handle((v, e) -> e).join();
      assertThat(cause).isInstanceOf(CancellationException.class);
      assertThat(cause.getStackTrace()).as("stack trace of %s's cancellation", f).isEmpty();
      assertThat(Futures.isCancellation(cause)).isTrue();
    }
  }

  @Test
  void aNewFutureCancelsLikeAnyOtherButOnlyWhileIncomplete() {
    CompletableFuture<String> open = Futures.newFuture();
    CompletableFuture<String> done = Futures.newFuture();
    done.complete("kept");

    assertThat(open.cancel(false)).isTrue();
    assertThat(open.cancel(false)).as("cancelling twice still reports cancelled").isTrue();
    assertThat(open.complete("late")).isFalse();
    assertThat(open).isCancelled();
    org.assertj.core.api.Assertions.assertThatThrownBy(open::join)
        .isInstanceOf(CancellationException.class);

    assertThat(done.cancel(true)).isFalse();
    assertThat(done.join()).isEqualTo("kept");
  }

  @Test
  void onAllEndedRunsOnceWhenTheLastFutureEndsHoweverEachEnded() {
    CompletableFuture<String> answered = new CompletableFuture<>();
    CompletableFuture<String> failed = new CompletableFuture<>();
    CompletableFuture<String> cancelled = Futures.newFuture();
    java.util.concurrent.atomic.AtomicInteger runs =
        new java.util.concurrent.atomic.AtomicInteger();

    Futures.onAllEnded(java.util.List.of(answered, failed, cancelled), runs::incrementAndGet);
    answered.complete("ok");
    failed.completeExceptionally(new IllegalStateException("boom"));
    assertThat(runs).as("two of three ended").hasValue(0);
    cancelled.cancel(true);
    assertThat(runs).hasValue(1);

    Futures.onAllEnded(java.util.List.of(), runs::incrementAndGet);
    assertThat(runs).as("none to wait for: at once").hasValue(2);
    Futures.onAllEnded(java.util.List.of(answered, failed), runs::incrementAndGet);
    assertThat(runs).as("all ended already: at once").hasValue(3);
  }

  @Test
  void anOutcomeRelayFailsWithWhatItsNextThrowsOrWithANullFuture() {
    IllegalStateException bad = new IllegalStateException("bad");
    CompletableFuture<Integer> inner = new CompletableFuture<>();
    CompletableFuture<String> throwing =
        Futures.relayOutcome(
            inner,
            (v, e) -> {
              throw bad;
            });
    CompletableFuture<String> nothing = Futures.relayOutcome(inner, (v, e) -> null);

    inner.complete(1);

    assertThat(throwing.handle((v, e) -> e).join()).isSameAs(bad);
    assertThat(nothing.handle((v, e) -> e).join())
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("next returned no future");
  }
}
