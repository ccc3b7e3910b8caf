package io.rafestore.clouds;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cloud that keeps its objects in this JVM's heap: a first-class driver for tests, simulations
 * and the embedded demo, not a mock. Every call completes before it returns (the future is already
 * done), which makes runs on a {@link VirtualScheduler} deterministic; wrap it in {@link
 * WanEmulator} to give it a round-trip time and bandwidth.
 *
 * <p>Objects are copied in and out, so callers can never alias stored bytes. Thread-safe.
 *
 * <p>A cloud made by {@link #withMultipart} also offers a native {@link Multipart} upload with the
 * given limits, enforced as S3 enforces them (a part under the minimum, other than the last, fails
 * {@code complete}), so protocol tests can exercise joined objects; {@link #openUploads()} counts
 * uploads neither completed nor aborted.
 */
public final class MemoryCloud implements CloudDriver {
  private final String id;
  private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
  private final Multipart multipart;
  private final Map<Long, Upload> uploads = new ConcurrentHashMap<>();
  private final AtomicLong uploadIds = new AtomicLong();
  private volatile boolean closed;

  /** An empty cloud with the given id, without native multipart uploads. */
  public MemoryCloud(String id) {
    this(id, 0, 0);
  }

  private MemoryCloud(String id, long minPartSize, int maxParts) {
    this.id = Objects.requireNonNull(id, "id");
    if (id.isBlank()) {
      throw new IllegalArgumentException("cloud id must not be blank");
    }
    this.multipart = maxParts == 0 ? null : new NativeUploads(minPartSize, maxParts);
  }

  /**
   * An empty cloud that also offers native multipart uploads.
   *
   * @param minPartSize the smallest size accepted for every part but the last, {@code >= 1}
   * @param maxParts the most parts per upload, {@code >= 1}
   */
  public static MemoryCloud withMultipart(String id, long minPartSize, int maxParts) {
    if (minPartSize < 1) {
      throw new IllegalArgumentException("minPartSize must be >= 1, was " + minPartSize);
    }
    if (maxParts < 1) {
      throw new IllegalArgumentException("maxParts must be >= 1, was " + maxParts);
    }
    return new MemoryCloud(id, minPartSize, maxParts);
  }

  @Override
  public Optional<Multipart> multipart() {
    return Optional.ofNullable(multipart);
  }

  /** Multipart uploads begun and neither completed nor aborted. */
  public int openUploads() {
    return uploads.size();
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
    return CompletableFuture.completedFuture(ContentTags.slice(stored, range, false));
  }

  @Override
  public boolean conditionalGets() {
    return true;
  }

  /**
   * Conditional gets with a content tag (the SHA-256 of the stored bytes, as S3's ETag is a hash of
   * a single-part object's bytes): "unchanged" exactly when the stored bytes are those the tag was
   * given for.
   */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    if (closed) {
      return closedFailure();
    }
    byte[] stored = objects.get(key.value());
    if (stored == null) {
      return CompletableFuture.failedFuture(CloudException.notFound(id, key));
    }
    return CompletableFuture.completedFuture(ContentTags.answer(stored, range, ifNoneMatch, false));
  }

  @Override
  public boolean conditionalPuts() {
    return true;
  }

  /**
   * Conditional puts against the content tag {@link #getTagged} gives: the check and the store are
   * one atomic step of the map, so no put lands between them.
   */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(ifMatch, "ifMatch");
    if (closed) {
      return closedFailure();
    }
    byte[] copy = data.clone();
    boolean[] stored = new boolean[1];
    // The map may apply the function more than once under contention; the last application is the
    // one that took effect, and it sets the flag last.
    objects.compute(
        key.value(),
        (k, current) -> {
          boolean match =
              ifMatch.isEmpty()
                  ? current == null
                  : current != null && ifMatch.get().equals(ContentTags.of(current));
          stored[0] = match;
          return match ? copy : current;
        });
    return CompletableFuture.completedFuture(stored[0]);
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

  private final class NativeUploads implements Multipart {
    private final long minPartSize;
    private final int maxParts;

    NativeUploads(long minPartSize, int maxParts) {
      this.minPartSize = minPartSize;
      this.maxParts = maxParts;
    }

    @Override
    public long minPartSize() {
      return minPartSize;
    }

    @Override
    public long maxPartSize() {
      return Integer.MAX_VALUE - 8;
    }

    @Override
    public int maxParts() {
      return maxParts;
    }

    @Override
    public CompletableFuture<MultipartUpload> begin(ObjectKey key) {
      Objects.requireNonNull(key, "key");
      if (closed) {
        return closedFailure();
      }
      long uploadId = uploadIds.incrementAndGet();
      Upload u = new Upload(uploadId, key, this);
      uploads.put(uploadId, u);
      return CompletableFuture.completedFuture(u);
    }
  }

  /** Parts held aside until complete; removed from {@link #uploads} by complete or abort. */
  private final class Upload implements MultipartUpload {
    private final long uploadId;
    private final ObjectKey key;
    private final NativeUploads limits;
    private final Map<Integer, byte[]> parts = new ConcurrentHashMap<>();

    Upload(long uploadId, ObjectKey key, NativeUploads limits) {
      this.uploadId = uploadId;
      this.key = key;
      this.limits = limits;
    }

    @Override
    public ObjectKey key() {
      return key;
    }

    @Override
    public CompletableFuture<Void> putPart(int index, byte[] data) {
      Objects.requireNonNull(data, "data");
      if (closed) {
        return closedFailure();
      }
      if (index < 0 || index >= limits.maxParts) {
        return failure("part index " + index + " is outside 0.." + (limits.maxParts - 1));
      }
      if (!uploads.containsKey(uploadId)) {
        return failure("upload of " + key + " is no longer open");
      }
      parts.put(index, data.clone());
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletableFuture<Void> complete(int count) {
      if (closed) {
        return closedFailure();
      }
      if (!uploads.containsKey(uploadId)) {
        return failure("upload of " + key + " is no longer open");
      }
      if (count < 1 || count > limits.maxParts) {
        return failure("part count " + count + " is outside 1.." + limits.maxParts);
      }
      long total = 0;
      for (int i = 0; i < count; i++) {
        byte[] p = parts.get(i);
        if (p == null) {
          return failure("part " + i + " of " + key + " was never uploaded");
        }
        if (i < count - 1 && p.length < limits.minPartSize) {
          return failure(
              "part "
                  + i
                  + " of "
                  + key
                  + " has "
                  + p.length
                  + " bytes, under the minimum part size "
                  + limits.minPartSize);
        }
        total += p.length;
      }
      if (total > Integer.MAX_VALUE - 8) {
        return failure("a joined object of " + total + " bytes does not fit in memory");
      }
      byte[] all = new byte[(int) total];
      int at = 0;
      for (int i = 0; i < count; i++) {
        byte[] p = parts.get(i);
        System.arraycopy(p, 0, all, at, p.length);
        at += p.length;
      }
      objects.put(key.value(), all);
      uploads.remove(uploadId);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> abort() {
      uploads.remove(uploadId);
      parts.clear();
      return CompletableFuture.completedFuture(null);
    }

    private CompletableFuture<Void> failure(String message) {
      return CompletableFuture.failedFuture(
          new CloudException(id, CloudException.Kind.OTHER, message));
    }
  }

  @Override
  public String toString() {
    return "MemoryCloud[" + id + ", " + objects.size() + " objects]";
  }
}
