package io.rafestore.internal.protocol;

import io.rafestore.Scheduler;
import io.rafestore.internal.util.Futures;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * A test decorator for protocol tests: a round-trip time on virtual time plus one switchable
 * misbehaviour. Deterministic under its seed.
 */
final class TestCloud implements CloudDriver {
  enum Behaviour {
    CORRECT,
    CRASH,
    HANG,
    SLOW,
    CORRUPT,
    STALE,
    OTHER_KEY,
    DROP_WRITES,
    GARBLE_METADATA,
    FORGE_METADATA
  }

  private final CloudDriver delegate;
  private final Scheduler scheduler;
  private final Random random;
  private volatile Duration rtt = Duration.ZERO;
  private volatile Behaviour behaviour = Behaviour.CORRECT;
  private volatile UnaryOperator<byte[]> forger = b -> b;

  /** Every version ever put, per object, for STALE. */
  private final Map<String, List<byte[]>> history = new HashMap<>();

  TestCloud(CloudDriver delegate, Scheduler scheduler, long seed) {
    this.delegate = delegate;
    this.scheduler = scheduler;
    this.random = new Random(seed);
  }

  TestCloud rtt(Duration rtt) {
    this.rtt = rtt;
    return this;
  }

  Duration rtt() {
    return rtt;
  }

  TestCloud behave(Behaviour b) {
    this.behaviour = b;
    return this;
  }

  TestCloud forger(UnaryOperator<byte[]> f) {
    this.forger = f;
    return this;
  }

  @Override
  public String id() {
    return delegate.id();
  }

  private <T> CompletableFuture<T> after(
      Duration d, java.util.function.Supplier<CompletableFuture<T>> call) {
    Behaviour b = behaviour;
    if (b == Behaviour.HANG) {
      return new CompletableFuture<>();
    }
    if (b == Behaviour.CRASH) {
      return CompletableFuture.failedFuture(
          new CloudException(id(), CloudException.Kind.UNAVAILABLE, "crashed"));
    }
    Duration delay = b == Behaviour.SLOW ? d.multipliedBy(10).plusSeconds(5) : d;
    CompletableFuture<T> out = new CompletableFuture<>();
    Scheduler.Cancellable timer =
        scheduler.schedule(delay, () -> call.get().whenComplete(Futures.completer(out)));
    out.whenComplete((r, e) -> timer.cancel());
    return out;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    byte[] copy = data.clone();
    return after(
        rtt,
        () -> {
          synchronized (history) {
            history.computeIfAbsent(key.value(), k -> new ArrayList<>()).add(copy);
          }
          if (behaviour == Behaviour.DROP_WRITES) {
            return CompletableFuture.completedFuture(null);
          }
          return delegate.put(key, copy);
        });
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    return after(rtt, () -> delegate.get(key, range).thenApply(b -> lie(key, b)));
  }

  private byte[] lie(ObjectKey key, byte[] bytes) {
    boolean meta = key.value().startsWith("m/");
    switch (behaviour) {
      case CORRUPT:
        if (bytes.length > 0) {
          byte[] c = bytes.clone();
          synchronized (random) {
            c[random.nextInt(c.length)] ^= (byte) (1 + random.nextInt(255));
          }
          return c;
        }
        return new byte[] {1};
      case STALE:
        synchronized (history) {
          List<byte[]> h = history.get(key.value());
          return h == null || h.isEmpty() ? bytes : h.get(0).clone();
        }
      case OTHER_KEY:
        synchronized (history) {
          for (Map.Entry<String, List<byte[]>> e : history.entrySet()) {
            if (!e.getKey().equals(key.value()) && e.getKey().startsWith(meta ? "m/" : "d/")) {
              List<byte[]> h = e.getValue();
              return h.get(h.size() - 1).clone();
            }
          }
        }
        return bytes;
      case GARBLE_METADATA:
        if (meta) {
          byte[] g = new byte[bytes.length];
          synchronized (random) {
            random.nextBytes(g);
          }
          return g;
        }
        return bytes;
      case FORGE_METADATA:
        return meta ? forger.apply(bytes) : bytes;
      default:
        return bytes;
    }
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return after(rtt, () -> delegate.delete(key));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return after(rtt, () -> delegate.list(prefix));
  }

  @Override
  public void close() {
    delegate.close();
  }
}
