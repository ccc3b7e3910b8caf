package io.rafestore.bench.support;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link MemoryCloud} that forgets all but the newest few data objects of each key, so a run of
 * 60 versions of a 16 MB value does not keep 60 x 16 MB per cloud in the heap. It sits under the
 * {@link io.rafestore.clouds.WanEmulator}, and the protocol never asks for a superseded version in
 * PaperBench (each cell writes one key, then reads only its latest version), so what the protocol
 * sees, requests, bytes and timing, is unchanged; the JMH client-CPU suite uses it for the same
 * reason. Metadata objects are kept as they are.
 *
 * <p>Data objects are recognised by RafeStore's layout ({@code d/<encoded key>/<writer>-<nonce>}):
 * everything up to the last {@code /} is the key's prefix. A bench device, not a driver: do not use
 * it where old versions are read. Its store offers no native multipart upload, so every data object
 * passes through {@link #put}. Thread-safe.
 */
public final class RetainNewestCloud extends ForwardingCloud {
  private static final String DATA_PREFIX = "d/";

  private final MemoryCloud store;
  private final int keep;
  // Guarded by this: the data objects of each key prefix, oldest first.
  private final Map<String, ArrayDeque<ObjectKey>> dataByPrefix = new HashMap<>();

  public RetainNewestCloud(String id, int keep) {
    this(new MemoryCloud(id), keep);
  }

  private RetainNewestCloud(MemoryCloud store, int keep) {
    super(store);
    if (keep < 1) {
      throw new IllegalArgumentException("keep must be >= 1, was " + keep);
    }
    this.store = store;
    this.keep = keep;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    CompletableFuture<Void> result = store.put(key, data);
    if (result.isDone()) {
      retain(key);
    }
    return result;
  }

  /** Offered as the memory cloud offers them (puts stored are retained as {@link #put}'s are). */
  @Override
  public boolean conditionalPuts() {
    return delegate().conditionalPuts();
  }

  /**
   * The memory cloud's conditional put; one that stored is counted among its key's newest data
   * objects as a {@link #put} is, so a data object stored either way is forgotten in turn.
   */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    CompletableFuture<Boolean> result = store.putIfMatch(key, data, ifMatch);
    if (result.isDone() && !result.isCompletedExceptionally() && result.join()) {
      retain(key);
    }
    return result;
  }

  /**
   * Records {@code key}, just stored, among the newest data objects of its key prefix, and deletes
   * the oldest beyond {@code keep}; metadata objects are not counted.
   */
  private void retain(ObjectKey key) {
    String name = key.value();
    int slash = name.lastIndexOf('/');
    if (name.startsWith(DATA_PREFIX) && slash > 0) {
      String prefix = name.substring(0, slash);
      ObjectKey evicted = null;
      synchronized (this) {
        ArrayDeque<ObjectKey> q = dataByPrefix.computeIfAbsent(prefix, p -> new ArrayDeque<>());
        q.addLast(key);
        if (q.size() > keep) {
          evicted = q.removeFirst();
        }
      }
      if (evicted != null) {
        store.delete(evicted); // a MemoryCloud delete completes before it returns
      }
    }
  }

  /** Gets are not changed here, so conditional gets are the memory cloud's own. */
  @Override
  public boolean conditionalGets() {
    return delegate().conditionalGets();
  }

  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    return delegate().getTagged(key, range, ifNoneMatch);
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    synchronized (this) {
      for (ArrayDeque<ObjectKey> q : dataByPrefix.values()) {
        q.remove(key);
      }
    }
    return store.delete(key);
  }

  /** Bytes held now (for tests). */
  public long storedBytes() {
    return store.storedBytes();
  }
}
