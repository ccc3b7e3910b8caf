package io.rafestore.internal.protocol;

import io.rafestore.CloudFault;
import io.rafestore.RafeStoreException;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.util.Futures;
import io.rafestore.spi.ObjectKey;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A large value sent in parts (what writeDo and writeDf send to one data cloud, and the entry that
 * names it; {@link WriteOp} treats one cloud's whole upload as one acknowledgement): every data
 * cloud receives every part as its own object ({@link LogEntry#partObject}), with up to {@code
 * partsInFlight} part uploads in flight per cloud. A cloud's upload is acknowledged when all its
 * parts are; one failed part fails the cloud (and the write replaces it, as for a whole value).
 *
 * <p>The parts come from a byte array (all available at once) or from a stream ({@link
 * #fromStream}), read by the caller's thread through a sliding window: a part is read only when it
 * is at most {@code partsInFlight} parts ahead of the slowest upload that started with the stream,
 * and dropped once every such upload acknowledged it, so memory stays near {@code partsInFlight x
 * partSize} whatever the value's size. A cloud added later (writeDf, or the replacement of a failed
 * cloud) copies the parts already dropped from a cloud that acknowledged them, checking each
 * against the part hash the stream produced; the stream is read once.
 *
 * <p>Each cloud's whole upload is fed to the latency model as one transfer (bytes over elapsed
 * time), since parts in parallel share the cloud's bandwidth and would each look slower than the
 * cloud is. Thread-safe: state is guarded by this object's monitor, and no driver is called while
 * holding it.
 */
final class PartedPayload {
  private final Context ctx;
  private final long size;
  private final int count;
  private final long partLength;
  private final int window;
  private final byte[] whole;
  private final CompletableFuture<byte[]> wholeHash = new CompletableFuture<>();

  /**
   * The confidentiality option: each part is sealed on its own before any cloud sees it (set by
   * {@link #start}, before the first part is produced), or null.
   */
  private volatile KeyShares.PartSealer sealer;

  // Guarded by this.
  private final byte[][] partHashes;
  private final List<CompletableFuture<byte[]>> produced = new ArrayList<>();
  private final List<Set<String>> ackedBy = new ArrayList<>();
  private final Set<Uploader> uploaders = new LinkedHashSet<>();
  private int lowWater;
  private Throwable aborted;

  private PartedPayload(Context ctx, long size, byte[] whole) {
    this.ctx = ctx;
    this.size = size;
    this.whole = whole;
    long part = ctx.settings.partSize();
    this.count = (int) ((size + part - 1) / part);
    if (!LogEntry.partsFit(size, count)) {
      throw new IllegalArgumentException("a value of " + size + " bytes cannot be split in parts");
    }
    this.partLength = (size + count - 1) / count;
    this.window = ctx.settings.partsInFlight();
    this.partHashes = new byte[count][];
    for (int i = 0; i < count; i++) {
      produced.add(new CompletableFuture<>());
      ackedBy.add(new LinkedHashSet<>());
    }
  }

  /** Whether a value of {@code size} bytes is sent in parts under these settings. */
  static boolean needsParts(Settings settings, long size) {
    // The erasure-coding option codes a value whole; such values are not split (combining the
    // two is future work). Sealed values are split, each part sealed on its own.
    return size > settings.partSize() && settings.erasureK() == 0;
  }

  /** Parts of an in-memory value; {@link #start} hashes (and seals) them on the executor. */
  static PartedPayload fromBytes(Context ctx, byte[] value) {
    return new PartedPayload(ctx, value.length, value);
  }

  /**
   * Binds the payload to its write: under the confidentiality option a fresh key seals every part
   * for {@code dataObject}; an in-memory value's parts are then hashed (and sealed) on the
   * executor. Called once, by the write, before any upload or {@link #produce}.
   */
  void start(String key, ObjectKey dataObject) {
    if (ctx.settings.encryptValues()) {
      sealer = KeyShares.sealParts(ctx, key, dataObject, count);
    }
    if (whole == null) {
      return;
    }
    Executor executor = ctx.settings.executor();
    CompletableFuture.runAsync(
            () -> {
              MessageDigest all = sha256();
              for (int i = 0; i < count; i++) {
                int from = (int) (i * partLength);
                int to = (int) Math.min(size, from + partLength);
                byte[] stored = null;
                MessageDigest d = sha256();
                if (sealer == null) {
                  d.update(whole, from, to - from);
                  all.update(whole, from, to - from);
                } else {
                  // Sealing draws a random nonce: every cloud must get the same sealed bytes
                  // (one signed hash), so each part is sealed once and kept.
                  stored = sealer.seal(i, Arrays.copyOfRange(whole, from, to));
                  d.update(stored);
                  all.update(stored);
                }
                byte[] h = d.digest();
                CompletableFuture<byte[]> slot;
                synchronized (this) {
                  partHashes[i] = h;
                  slot = produced.get(i);
                }
                if (stored != null) {
                  slot.complete(stored);
                }
              }
              wholeHash.complete(all.digest());
            },
            executor)
        .exceptionally(
            e -> {
              abort(e);
              return null;
            });
  }

  /** The key shares of a sealed payload (for writeM's envelopes), or null. */
  KeyShares.Sealed sealedShares() {
    KeyShares.PartSealer s = sealer;
    return s == null ? null : s.shares();
  }

  /** Parts of a value read from a stream by {@link #produce}. */
  static PartedPayload fromStream(Context ctx, long size) {
    return new PartedPayload(ctx, size, null);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private long partSize(int i) {
    return Math.min(partLength, size - i * partLength);
  }

  /** What a holder stores for part {@code i} (see {@link LogEntry#storedPartSize}). */
  private long storedPartSize(int i) {
    return partSize(i) + (sealer == null ? 0 : LogEntry.SEALED_PART_OVERHEAD);
  }

  /**
   * Reads the stream into parts, blocking while the window is full. Runs on the caller's thread.
   *
   * @throws IOException if the stream fails or holds fewer or more than {@code size} bytes
   */
  void produce(InputStream in) throws IOException {
    MessageDigest all = sha256();
    try {
      for (int i = 0; i < count; i++) {
        synchronized (this) {
          while (aborted == null && i - lowWater >= window) {
            try {
              wait();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new java.io.InterruptedIOException("interrupted while writing a stream");
            }
          }
          if (aborted != null) {
            return;
          }
        }
        int n = (int) partSize(i);
        byte[] part = in.readNBytes(n);
        if (part.length < n) {
          throw new IllegalArgumentException(
              "stream ended after "
                  + (i * partLength + part.length)
                  + " bytes but the write declared size "
                  + size);
        }
        byte[] stored = sealer == null ? part : sealer.seal(i, part);
        all.update(stored);
        byte[] h = Sha256.hash(stored);
        CompletableFuture<byte[]> slot;
        synchronized (this) {
          partHashes[i] = h;
          slot = produced.get(i);
        }
        slot.complete(stored);
      }
      if (in.read() != -1) {
        throw new IllegalArgumentException(
            "stream holds more than the declared size of " + size + " bytes");
      }
      wholeHash.complete(all.digest());
    } catch (IOException | RuntimeException e) {
      abort(e);
      throw e;
    }
  }

  /** Stops producing and fails everything waiting for a part; idempotent. */
  void abort(Throwable why) {
    List<CompletableFuture<byte[]>> waiting;
    synchronized (this) {
      if (aborted != null) {
        return;
      }
      aborted = why;
      waiting = new ArrayList<>(produced);
      notifyAll();
    }
    CancellationException c = new CancellationException("stream write ended: " + why);
    for (CompletableFuture<byte[]> f : waiting) {
      if (f != null) {
        f.completeExceptionally(c);
      }
    }
    wholeHash.completeExceptionally(c);
  }

  long size() {
    return size;
  }

  CompletableFuture<LogEntry> entry(
      long timestamp, long createdAtMillis, String dataObject, List<String> holders) {
    return wholeHash.thenApply(
        sha -> {
          List<byte[]> hashes;
          synchronized (this) {
            hashes = Arrays.asList(partHashes.clone());
          }
          LogEntry plain =
              LogEntry.parts(timestamp, createdAtMillis, dataObject, size, sha, holders, hashes);
          KeyShares.PartSealer s = sealer;
          return s == null ? plain : s.shares().mark(plain);
        });
  }

  CompletableFuture<Void> upload(Context ctx, String cloud, ObjectKey dataObject) {
    Uploader u = new Uploader(cloud, dataObject.value());
    synchronized (this) {
      uploaders.add(u);
    }
    u.result.whenComplete(
        (r, e) -> {
          u.cancelAll();
          release(u);
          if (u.result.isCancelled()) {
            // As MeasuredCloud does for one request: a useless upload cancelled after running
            // past its prediction took at least that long.
            long took = ctx.settings.scheduler().nanoTime() - u.start;
            if (took > ctx.predictUpload(cloud, size).toNanos()) {
              long extra = (ctx.uploadRounds(size) - 1) * ctx.model.predict(cloud, 0).toNanos();
              ctx.model.record(cloud, size, Math.max(0, took - extra));
            }
          }
        });
    u.pump();
    return u.result;
  }

  /** The stored bytes of part {@code i} for {@code cloud}: from memory, or copied from a holder. */
  private CompletableFuture<byte[]> part(int i, String cloud) {
    if (whole != null && sealer == null) {
      int from = (int) (i * partLength);
      return CompletableFuture.completedFuture(
          Arrays.copyOfRange(whole, from, (int) (from + partSize(i))));
    }
    CompletableFuture<byte[]> slot;
    List<String> holders;
    byte[] hash;
    synchronized (this) {
      slot = produced.get(i);
      holders = new ArrayList<>(ackedBy.get(i));
      hash = partHashes[i];
    }
    if (slot != null) {
      return slot;
    }
    holders.remove(cloud);
    return copyFromHolder(i, hash, holders, 0, new ArrayList<>());
  }

  private CompletableFuture<byte[]> copyFromHolder(
      int i, byte[] hash, List<String> holders, int next, List<CloudFault> faults) {
    if (next >= holders.size()) {
      return CompletableFuture.failedFuture(
          new RafeStoreException(
              "part "
                  + i
                  + " of a stream write is no longer buffered and no holder returned it intact: "
                  + faults));
    }
    String from = holders.get(next);
    ObjectKey object = ObjectKey.of(LogEntry.partObject(currentObject, i));
    return ctx.byId
        .get(from)
        .driver()
        .get(object, Optional.empty())
        .handle(
            (bytes, e) -> {
              if (e == null && bytes.length == storedPartSize(i) && Sha256.matches(bytes, hash)) {
                return CompletableFuture.completedFuture(bytes);
              }
              CloudFault fault =
                  e != null
                      ? DataFetch.failedGet(from, object, Futures.unwrap(e))
                      : new CloudFault(from, CloudFault.Kind.CORRUPT_DATA, object + ": bad part");
              faults.add(fault);
              return copyFromHolder(i, hash, holders, next + 1, faults);
            })
        .thenCompose(f -> f);
  }

  /** The data object every upload of this payload uses (one write, one name). */
  private volatile String currentObject;

  private void acked(Uploader u, int i) {
    synchronized (this) {
      ackedBy.get(i).add(u.cloud);
    }
    advance();
  }

  private void release(Uploader u) {
    synchronized (this) {
      uploaders.remove(u);
    }
    advance();
  }

  /**
   * Drops the parts every running upload has acknowledged, and wakes the producer. An upload that
   * is still copying dropped parts from holders does not hold the window back; with no upload
   * running nothing is dropped.
   */
  private void advance() {
    if (whole != null) {
      return;
    }
    synchronized (this) {
      int low = uploaders.isEmpty() ? lowWater : count;
      for (Uploader u : uploaders) {
        low = Math.min(low, Math.max(lowWater, u.lowestUnacked()));
      }
      while (lowWater < low) {
        produced.set(lowWater++, null);
      }
      notifyAll();
    }
  }

  /** One cloud's upload of every part. */
  private final class Uploader {
    final String cloud;
    final String object;
    final long start = ctx.settings.scheduler().nanoTime();
    final CompletableFuture<Void> result = new CompletableFuture<>();
    // Guarded by PartedPayload.this.
    final Map<Integer, CompletableFuture<?>> inFlight = new HashMap<>();
    final boolean[] done = new boolean[count];
    int next;
    int doneCount;

    Uploader(String cloud, String object) {
      this.cloud = cloud;
      this.object = object;
      currentObject = object;
    }

    int lowestUnacked() {
      for (int i = 0; i < count; i++) {
        if (!done[i]) {
          return i;
        }
      }
      return count;
    }

    /** Starts part uploads until {@code partsInFlight} are in flight. */
    void pump() {
      List<Integer> launch = new ArrayList<>();
      synchronized (PartedPayload.this) {
        while (!result.isDone() && next < count && inFlight.size() + launch.size() < window) {
          launch.add(next++);
        }
        for (int i : launch) {
          inFlight.put(i, new CompletableFuture<Void>());
        }
      }
      for (int i : launch) {
        CompletableFuture<Void> put =
            part(i, cloud)
                .thenCompose(
                    bytes ->
                        ctx.byId
                            .get(cloud)
                            .accounting()
                            .put(ObjectKey.of(LogEntry.partObject(object, i)), bytes));
        synchronized (PartedPayload.this) {
          if (inFlight.containsKey(i)) {
            inFlight.put(i, put);
          }
        }
        if (result.isDone()) {
          put.cancel(true);
        }
        put.whenComplete((r, e) -> onPart(i, e));
      }
    }

    void onPart(int i, Throwable error) {
      boolean complete = false;
      synchronized (PartedPayload.this) {
        inFlight.remove(i);
        if (result.isDone()) {
          return;
        }
        if (error == null) {
          done[i] = true;
          complete = ++doneCount == count;
        }
      }
      if (error != null) {
        result.completeExceptionally(Futures.unwrap(error));
        return;
      }
      acked(this, i);
      if (complete) {
        // Recorded as one request: the round trips of the later batches are taken out, so the
        // model's bandwidth is the cloud's, and predictUpload adds them back.
        long took = ctx.settings.scheduler().nanoTime() - start;
        long extraTrips = (ctx.uploadRounds(size) - 1) * ctx.model.predict(cloud, 0).toNanos();
        ctx.model.record(cloud, size, Math.max(0, took - extraTrips));
        result.complete(null);
      } else {
        pump();
      }
    }

    void cancelAll() {
      List<CompletableFuture<?>> copy;
      synchronized (PartedPayload.this) {
        copy = new ArrayList<>(inFlight.values());
        inFlight.clear();
      }
      for (CompletableFuture<?> f : copy) {
        f.cancel(true);
      }
    }
  }
}
