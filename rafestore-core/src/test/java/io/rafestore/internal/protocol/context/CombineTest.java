package io.rafestore.internal.protocol.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The protocol's own combinator, {@link Combine#both}. */
class CombineTest {
  @Test
  void bothFailsWithTheFirstFailureNotTheCancellationItCaused() {
    CompletableFuture<String> data = new CompletableFuture<>();
    CompletableFuture<Integer> key = new CompletableFuture<>();
    CompletableFuture<String> both = Combine.both(data, key, (d, k) -> d + k, Runnable::run);
    IllegalStateException keyFailed = new IllegalStateException("no key");

    key.completeExceptionally(keyFailed);

    assertThat(data).isCancelled();
    assertThat(both.handle((v, e) -> e).join()).isSameAs(keyFailed);
  }

  @Test
  void bothCombinesAndItsCancellationReachesBoth() {
    CompletableFuture<String> a = new CompletableFuture<>();
    CompletableFuture<Integer> b = new CompletableFuture<>();
    CompletableFuture<String> both = Combine.both(a, b, (x, y) -> x + y, Runnable::run);
    a.complete("v");
    b.complete(1);
    assertThat(both.join()).isEqualTo("v1");

    CompletableFuture<String> c = new CompletableFuture<>();
    CompletableFuture<Integer> d = new CompletableFuture<>();
    Combine.both(c, d, (x, y) -> x + y, Runnable::run).cancel(true);
    assertThat(c).isCancelled();
    assertThat(d).isCancelled();
  }
}
