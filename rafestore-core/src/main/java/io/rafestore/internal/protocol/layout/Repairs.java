package io.rafestore.internal.protocol.layout;

import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** The requests repair makes for any layout: a checked copy from another holder, and a put. */
final class Repairs {
  private Repairs() {}

  /**
   * The bytes of the first of {@code sources} that {@code layout} says hold what {@code checkOn}
   * asks of that source; fails when none does. The sources are asked in their order (fastest first,
   * as the caller ranks them): the next one at once when a source fails or answers bytes that do
   * not match, and also when a source is late, past twice the time the latency model predicts for
   * {@code bytes} from it (plus 5 ms), as a read's data fetch hedges; a late source is not given
   * up, and the first valid answer wins. So a source that stopped answering since verify costs the
   * copy a hedge, not its whole limit. Cancelling the result cancels the requests still out.
   */
  static CompletableFuture<byte[]> firstValid(
      Context ctx,
      ValueLayout.Bound bound,
      ValueLayout layout,
      List<String> sources,
      Function<String, ValueLayout.Check> checkOn,
      long bytes) {
    return new FirstValid(ctx, bound, layout, sources, checkOn, bytes).start();
  }

  /** One {@link #firstValid}: its requests, hedge timer and result. */
  private static final class FirstValid {
    private final Context ctx;
    private final ValueLayout.Bound bound;
    private final ValueLayout layout;
    private final List<String> sources;
    private final Function<String, ValueLayout.Check> checkOn;
    private final long bytes;
    private final CompletableFuture<byte[]> result = Futures.newFuture();
    // Guarded by this.
    private final List<CompletableFuture<byte[]>> inFlight = new ArrayList<>();
    private int next;
    private io.rafestore.Scheduler.Cancellable hedge;

    FirstValid(
        Context ctx,
        ValueLayout.Bound bound,
        ValueLayout layout,
        List<String> sources,
        Function<String, ValueLayout.Check> checkOn,
        long bytes) {
      this.ctx = ctx;
      this.bound = bound;
      this.layout = layout;
      this.sources = sources;
      this.checkOn = checkOn;
      this.bytes = bytes;
    }

    CompletableFuture<byte[]> start() {
      Futures.onEnd(result, (b, e) -> stop());
      ask();
      return result;
    }

    /**
     * Asks the next source there is, and arms the hedge after it if another is left; fails when
     * none is left and none is still out.
     */
    private void ask() {
      Cloud c = null;
      boolean exhausted = false;
      boolean more;
      synchronized (this) {
        if (result.isDone()) {
          return;
        }
        while (c == null && next < sources.size()) {
          c = ctx.byId.get(sources.get(next++));
        }
        if (c == null) {
          exhausted = inFlight.isEmpty();
        }
        more = next < sources.size();
      }
      if (c == null) {
        if (exhausted) {
          result.completeExceptionally(
              new IllegalStateException("no other holder returned bytes matching the signed hash"));
        }
        return;
      }
      ValueLayout.Check check = checkOn.apply(c.id());
      CompletableFuture<byte[]> request =
          bound.apply(
              c.driver().get(ObjectKey.of(check.object()), check.range()), c.id() + " data");
      synchronized (this) {
        inFlight.add(request);
      }
      if (result.isDone()) {
        request.cancel(true);
        return;
      }
      if (more) {
        armHedge(c.id());
      }
      String id = c.id();
      Futures.onEnd(request, (b, e) -> answered(id, check, request, e == null ? b : null));
    }

    private void armHedge(String id) {
      Duration wait = ctx.model.predict(id, bytes).multipliedBy(2).plusMillis(5);
      io.rafestore.Scheduler.Cancellable timer = ctx.settings.scheduler().schedule(wait, this::ask);
      io.rafestore.Scheduler.Cancellable old;
      synchronized (this) {
        old = hedge;
        hedge = timer;
      }
      if (old != null) {
        old.cancel();
      }
      if (result.isDone()) {
        timer.cancel();
      }
    }

    private void answered(
        String id, ValueLayout.Check check, CompletableFuture<byte[]> request, byte[] b) {
      synchronized (this) {
        inFlight.remove(request);
      }
      if (b != null && layout.holds(id, check, b)) {
        result.complete(b);
      } else {
        // Failed, missing or wrong: the next source at once (the hedge re-armed for it).
        ask();
      }
    }

    /** The result is in: no more hedges, and the requests still out are cancelled. */
    private void stop() {
      List<CompletableFuture<byte[]>> out;
      io.rafestore.Scheduler.Cancellable timer;
      synchronized (this) {
        out = new ArrayList<>(inFlight);
        inFlight.clear();
        timer = hedge;
        hedge = null;
      }
      if (timer != null) {
        timer.cancel();
      }
      out.forEach(f -> f.cancel(true));
    }
  }

  /**
   * Puts {@code bytes} once they are in as {@code object} on {@code holder}. Cancelling the result
   * (repair's copy limit) cancels the put, not {@code bytes}, which other holders' copies may
   * share.
   */
  static CompletableFuture<Void> put(
      Context ctx,
      ValueLayout.Bound bound,
      String holder,
      String object,
      CompletableFuture<byte[]> bytes) {
    return Futures.compose(
        bytes,
        b ->
            bound.apply(
                ctx.byId.get(holder).driver().put(ObjectKey.of(object), b), holder + " put"));
  }
}
