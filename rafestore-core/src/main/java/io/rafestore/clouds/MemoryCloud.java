package io.rafestore.clouds;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A cloud that keeps its objects in this JVM's heap: a first-class driver for tests, simulations
 * and the embedded demo, not a mock. Every call completes before it returns (the future is already
 * done), which makes runs on a {@link VirtualScheduler} deterministic; wrap it in {@link
 * WanEmulator} to give it a round-trip time and bandwidth.
 *
 * <p>Objects are copied in and out, so callers can never alias stored bytes. Thread-safe.
 */
public final class MemoryCloud implements CloudDriver {
  private final String id;
  private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
  private volatile boolean closed;

  /** An empty cloud with the given id. */
  public MemoryCloud(String id) {
    this.id = Objects.requireNonNull(id, "id");
    if (id.isBlank()) {
      throw new IllegalArgumentException("cloud id must not be blank");
    }
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    if (closed) {
      return closedFailure();
    }
    objects.put(key.value(), data.clone());
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    if (closed) {
      return closedFailure();
    }
    byte[] stored = objects.get(key.value());
    if (stored == null) {
      return CompletableFuture.failedFuture(CloudException.notFound(id, key));
    }
    if (range.isEmpty()) {
      return CompletableFuture.completedFuture(stored.clone());
    }
    long[] span = range.get().clip(stored.length);
    return CompletableFuture.completedFuture(
        Arrays.copyOfRange(stored, (int) span[0], (int) span[1]));
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    if (closed) {
      return closedFailure();
    }
    objects.remove(key.value());
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (closed) {
      return closedFailure();
    }
    List<ObjectInfo> out = new ArrayList<>();
    for (Map.Entry<String, byte[]> e : objects.tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      out.add(new ObjectInfo(ObjectKey.of(e.getKey()), e.getValue().length));
    }
    return CompletableFuture.completedFuture(out);
  }

  /** Native paging: the sorted map is read from the first name after {@code startAfter}. */
  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    if (closed) {
      return closedFailure();
    }
    NavigableMap<String, byte[]> tail =
        startAfter.compareTo(prefix) < 0
            ? objects.tailMap(prefix, true)
            : objects.tailMap(startAfter, false);
    List<ObjectInfo> out = new ArrayList<>();
    boolean more = false;
    for (Map.Entry<String, byte[]> e : tail.entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      if (out.size() == limit) {
        more = true;
        break;
      }
      out.add(new ObjectInfo(ObjectKey.of(e.getKey()), e.getValue().length));
    }
    return CompletableFuture.completedFuture(new ListPage(out, more));
  }

  /** Number of objects stored (for tests and the demo). */
  public int size() {
    return objects.size();
  }

  /** Total bytes stored. */
  public long storedBytes() {
    long sum = 0;
    for (byte[] b : objects.values()) {
      sum += b.length;
    }
    return sum;
  }

  @Override
  public void close() {
    closed = true;
  }

  private <T> CompletableFuture<T> closedFailure() {
    return CompletableFuture.failedFuture(
        new CloudException(id, CloudException.Kind.UNAVAILABLE, "driver is closed"));
  }

  @Override
  public String toString() {
    return "MemoryCloud[" + id + ", " + objects.size() + " objects]";
  }
}
