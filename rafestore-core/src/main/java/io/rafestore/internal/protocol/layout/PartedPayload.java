package io.rafestore.internal.protocol.layout;

import io.rafestore.CloudFault;
import io.rafestore.RafeStoreException;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
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
 * names it; the write treats one cloud's whole upload as one acknowledgement): every data cloud
 * receives every part as its own object ({@link LogEntry#partObject}), with up to {@code
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
 * <p>Where a cloud's driver offers a native multipart upload ({@link
 * io.rafestore.spi.CloudDriver#multipart()}) whose limits the parts fit, that cloud's parts go up
 * as one native upload instead, with the same window; the upload is acknowledged only after {@code
 * complete} succeeded (until then nothing is visible, so an acknowledged cloud holds every byte),
 * and aborted if it fails or is cancelled. The entry records such a holder as <em>joined</em>
 * ({@link LogEntry#joinedHolders()}): it stores one object under the data object's name, part i at
 * {@link LogEntry#storedPartOffset}.
 *
 * <p>Each cloud's whole upload is fed to the latency model as one transfer (bytes over elapsed
 * time), since parts in parallel share the cloud's bandwidth and would each look slower than the
 * cloud is. Thread-safe: state is guarded by this object's monitor, and no driver is called while
 * holding it.
 */
public final class PartedPayload implements Payload {
  private final Context ctx;
  private ObjectKey dataObject;
  private final long size;
  private final int count;
  private final long partLength;
  private final int window;
  private final byte[] whole;
  private final CompletableFuture<byte[]> wholeHash = new CompletableFuture<>();

  /** Whole copies or fragments, and on which clouds. */
  private final Placement placement;

  /** Fragments that rebuild a part, 0 for whole copies of every part. */
  private final int k;

  /** The code of each part (k data, f parity fragments), or null for whole copies. */
  private final io.rafestore.internal.codec.ReedSolomon code;

  /**
   * The confidentiality option: each part is sealed on its own before any cloud sees it (set by
   * {@link #start}, before the first part is produced), or null.
   */
  private volatile KeyShares.PartSealer sealer;

  // Guarded by this.
  private final byte[][] partHashes;

  /** Coded: the hash of each fragment of each part ([part][slot]); null for copies. */
  private final byte[][][] fragmentHashes;

  /** The slot each uploading cloud carries (its fragment of every part); 0 for copies. */
  private final Map<String, Integer> slotOf = new HashMap<>();

  /**
   * What each part is once produced: its stored bytes ({@code [0]}) for copies, its k+f fragments
   * for coded parts; null once dropped from the window.
   */
  private final List<CompletableFuture<byte[][]>> produced = new ArrayList<>();

  private final List<Set<String>> ackedBy = new ArrayList<>();
  private final Set<Uploader> uploaders = new LinkedHashSet<>();
  private final Set<String> joinedClouds = new java.util.HashSet<>();
  private int lowWater;
  private Throwable aborted;

  private PartedPayload(Context ctx, long size, byte[] whole, Placement placement) {
    this.ctx = ctx;
    this.size = size;
    this.whole = whole;
    this.placement = placement;
    this.k = placement.k();
    this.code = k > 0 ? io.rafestore.internal.codec.ReedSolomon.of(k, ctx.f()) : null;
    long part = ctx.settings.partSize();
    this.count = (int) ((size + part - 1) / part);
    if (!LogEntry.partsFit(size, count)) {
      throw new IllegalArgumentException("a value of " + size + " bytes cannot be split in parts");
    }
    this.partLength = (size + count - 1) / count;
    this.window = ctx.settings.partsInFlight();
    this.partHashes = new byte[count][];
    this.fragmentHashes = k > 0 ? new byte[count][][] : null;
    for (int i = 0; i < count; i++) {
      produced.add(new CompletableFuture<>());
      ackedBy.add(new LinkedHashSet<>());
    }
  }

  /**
   * Parts of an in-memory value of a new version of {@code key}, under a fresh data object name;
   * their hashing (and sealing) starts on the executor at once.
   */
  public static PartedPayload fromBytes(
      Context ctx, String key, byte[] value, Placement placement) {
    PartedPayload p = new PartedPayload(ctx, value.length, value, placement);
    p.start(key, Names.freshDataObject(key, ctx.settings.writerId()));
    return p;
  }

  @Override
  public ObjectKey dataObject() {
    return dataObject;
  }

  @Override
  public Placement placement() {
    return placement;
  }

  /**
   * Uploads writeDo starts with: f+1 clouds for copies, k+f for fragments (each needing its own
   * acknowledgement).
   */
  public int slots() {
    return k > 0 ? k + ctx.f() : ctx.f() + 1;
  }

  /** Whether each slot carries its own fragment of every part. */
  public boolean distinctSlots() {
    return k > 0;
  }

  /** Bytes one cloud's upload carries: the stored value, or its fragment of every part. */
  public long uploadBytes() {
    if (k == 0) {
      return size;
    }
    long total = 0;
    for (int i = 0; i < count; i++) {
      total += code.shardSize((int) storedPartSize(i));
    }
    return total;
  }

  /**
   * Binds the payload to its write: under the confidentiality option a fresh key seals every part
   * for {@code dataObject}; an in-memory value's parts are then hashed (and sealed) on the
   * executor. Called once, by the factory, before any upload or {@link #produce}.
   */
  private void start(String key, ObjectKey dataObject) {
    this.dataObject = dataObject;
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
                  if (k > 0) {
                    stored = Arrays.copyOfRange(whole, from, to);
                  }
                } else {
                  // Sealing draws a random nonce: every cloud must get the same sealed bytes
                  // (one signed hash), so each part is sealed once and kept.
                  stored = sealer.seal(i, Arrays.copyOfRange(whole, from, to));
                  d.update(stored);
                  all.update(stored);
                }
                byte[] h = d.digest();
                if (stored != null) {
                  publish(i, h, stored);
                } else {
                  synchronized (this) {
                    partHashes[i] = h;
                  }
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
  public KeyShares.Sealed sealedShares() {
    KeyShares.PartSealer s = sealer;
    return s == null ? null : s.shares();
  }

  /**
   * Parts of a new version of {@code key} read from a stream by {@link #produce}, under a fresh
   * data object name.
   */
  public static PartedPayload fromStream(Context ctx, String key, long size, Placement placement) {
    PartedPayload p = new PartedPayload(ctx, size, null, placement);
    p.start(key, Names.freshDataObject(key, ctx.settings.writerId()));
    return p;
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

  /** Where part {@code i} starts in a joined object (see {@link LogEntry#storedPartOffset}). */
  private long storedPartOffset(int i) {
    return LogEntry.storedPartOffset(partLength, i, sealer != null);
  }

  /** What a holder stores for part {@code i} (see {@link LogEntry#storedPartSize}). */
  private long storedPartSize(int i) {
    return LogEntry.storedPartSize(partSize(i), sealer != null);
  }

  /**
   * Part {@code i} is produced: its stored bytes (hash {@code hash}) become what uploads send,
   * coded into k+f fragments first (each hashed) for coded parts.
   */
  private void publish(int i, byte[] hash, byte[] stored) {
    byte[][] pieces;
    byte[][] hashes = null;
    if (k > 0) {
      pieces = code.encode(stored);
      hashes = new byte[pieces.length][];
      for (int s = 0; s < pieces.length; s++) {
        hashes[s] = Sha256.hash(pieces[s]);
      }
    } else {
      pieces = new byte[][] {stored};
    }
    CompletableFuture<byte[][]> slot;
    synchronized (this) {
      partHashes[i] = hash;
      if (hashes != null) {
        fragmentHashes[i] = hashes;
      }
      slot = produced.get(i);
    }
    if (slot != null) {
      slot.complete(pieces);
    }
  }

  /**
   * Reads the stream into parts, blocking while the window is full. Runs on the caller's thread.
   *
   * @throws IOException if the stream fails or holds fewer or more than {@code size} bytes
   */
  public void produce(InputStream in) throws IOException {
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
        publish(i, Sha256.hash(stored), stored);
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
  public void abort(Throwable why) {
    List<CompletableFuture<byte[][]>> waiting;
    synchronized (this) {
      if (aborted != null) {
        return;
      }
      aborted = why;
      waiting = new ArrayList<>(produced);
      notifyAll();
    }
    CancellationException c = new CancellationException("stream write ended: " + why);
    for (CompletableFuture<byte[][]> f : waiting) {
      if (f != null) {
        f.completeExceptionally(c);
      }
    }
    wholeHash.completeExceptionally(c);
  }

  public long size() {
    return size;
  }

  public CompletableFuture<LogEntry> entry(
      long timestamp, long createdAtMillis, List<String> holders) {
    return wholeHash.thenApply(
        sha -> {
          List<byte[]> hashes;
          synchronized (this) {
            hashes = Arrays.asList(partHashes.clone());
          }
          LogEntry plain;
          if (k > 0) {
            // Holder i (slot order) stores fragment i of every part.
            List<List<byte[]>> fragments = new ArrayList<>();
            synchronized (this) {
              for (byte[][] f : fragmentHashes) {
                fragments.add(Arrays.asList(f));
              }
            }
            plain =
                LogEntry.codedParts(
                    timestamp,
                    createdAtMillis,
                    dataObject.value(),
                    size,
                    sha,
                    holders,
                    k,
                    hashes,
                    fragments);
          } else {
            List<String> joined = new ArrayList<>();
            synchronized (this) {
              for (String h : holders) {
                if (joinedClouds.contains(h)) {
                  joined.add(h);
                }
              }
            }
            plain =
                LogEntry.parts(
                        timestamp, createdAtMillis, dataObject.value(), size, sha, holders, hashes)
                    .withJoined(joined);
          }
          KeyShares.PartSealer s = sealer;
          return s == null ? plain : s.shares().mark(plain);
        });
  }

  /**
   * Uploads every part to {@code cloud}: whole stored parts, or its fragment {@code slot} of every
   * part for coded parts.
   */
  public CompletableFuture<Void> upload(Context ctx, String cloud, ObjectKey dataObject, int slot) {
    Uploader u = new Uploader(cloud, dataObject.value());
    synchronized (this) {
      uploaders.add(u);
      slotOf.put(cloud, k > 0 ? slot : 0);
    }
    Futures.onEnd(
        u.result,
        (r, e) -> {
          u.cancelAll();
          if (e != null) {
            u.abortNative();
          }
          release(u);
          if (u.result.isCancelled()) {
            // As MeasuredCloud does for one request: a useless upload cancelled after running
            // past its prediction took at least that long.
            long took = ctx.settings.scheduler().nanoTime() - u.start;
            long bytes = uploadBytes();
            if (took > ctx.upload(cloud, bytes, ctx.uploadRounds(size)).toNanos()) {
              long extra = (ctx.uploadRounds(size) - 1) * ctx.model.predict(cloud, 0).toNanos();
              ctx.model.record(cloud, bytes, Math.max(0, took - extra));
            }
          }
        });
    u.pump();
    return u.result;
  }

  /**
   * What {@code cloud} stores of part {@code i}: the stored part, or its fragment; from memory, or
   * once dropped from the window copied (or, for a fragment, rebuilt) from the clouds that hold it.
   */
  private CompletableFuture<byte[]> part(int i, String cloud) {
    if (whole != null && sealer == null && k == 0) {
      int from = (int) (i * partLength);
      return CompletableFuture.completedFuture(
          Arrays.copyOfRange(whole, from, (int) (from + partSize(i))));
    }
    CompletableFuture<byte[][]> slot;
    List<String> holders;
    byte[] hash;
    int s;
    synchronized (this) {
      slot = produced.get(i);
      holders = new ArrayList<>(ackedBy.get(i));
      hash = partHashes[i];
      s = slotOf.getOrDefault(cloud, 0);
    }
    if (slot != null) {
      return slot.thenApply(pieces -> pieces[k > 0 ? s : 0]);
    }
    holders.remove(cloud);
    if (k > 0) {
      return rebuildFragment(i, s, holders);
    }
    return copyFromHolder(i, hash, holders, 0, new ArrayList<>());
  }

  /**
   * Fragment {@code slot} of part {@code i}, dropped from the window, rebuilt for a cloud added
   * late: the fragments of the clouds that acknowledged the part are fetched (all at once), each
   * checked against the hash the stream produced; k of them decode the stored part, which must
   * match its hash, and its re-encoding gives the fragment.
   */
  private CompletableFuture<byte[]> rebuildFragment(int i, int slot, List<String> holders) {
    byte[][] shards = new byte[k + ctx.f()][];
    byte[] partHash;
    byte[][] expected;
    Map<String, Integer> slots;
    synchronized (this) {
      partHash = partHashes[i];
      expected = fragmentHashes[i];
      slots = new HashMap<>(slotOf);
    }
    List<CompletableFuture<Void>> gets = new ArrayList<>();
    for (String h : holders) {
      int hs = slots.getOrDefault(h, -1);
      if (hs < 0) {
        continue;
      }
      gets.add(
          ctx.byId
              .get(h)
              .driver()
              .get(ObjectKey.of(LogEntry.partObject(currentObject, i)), Optional.empty())
              .handle(
                  (b, e) -> {
                    if (e == null && Sha256.matches(b, expected[hs])) {
                      synchronized (shards) {
                        shards[hs] = b;
                      }
                    }
                    return null;
                  }));
    }
    long length = storedPartSize(i);
    return CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0]))
        .thenApplyAsync(
            x -> {
              try {
                byte[] stored;
                synchronized (shards) {
                  stored = code.decode(shards, Math.toIntExact(length));
                }
                if (!Sha256.matches(stored, partHash)) {
                  throw new io.rafestore.internal.codec.MalformedInputException(
                      "decoded part does not match its hash");
                }
                return code.encode(stored)[slot];
              } catch (io.rafestore.internal.codec.MalformedInputException | RuntimeException e) {
                throw new java.util.concurrent.CompletionException(
                    new RafeStoreException(
                        "part "
                            + i
                            + " of a stream write is no longer buffered and fewer than "
                            + k
                            + " of its fragments came back intact: "
                            + e.getMessage(),
                        e));
              }
            },
            ctx.settings.executor());
  }

  /** Where holder {@code cloud} keeps part {@code i}: its part object, or a range of the joined. */
  private CompletableFuture<byte[]> fetchPart(String cloud, int i) {
    boolean joined;
    synchronized (this) {
      joined = joinedClouds.contains(cloud);
    }
    if (joined) {
      return ctx.byId
          .get(cloud)
          .driver()
          .get(
              ObjectKey.of(currentObject),
              Optional.of(io.rafestore.spi.ByteRange.of(storedPartOffset(i), storedPartSize(i))));
    }
    return ctx.byId
        .get(cloud)
        .driver()
        .get(ObjectKey.of(LogEntry.partObject(currentObject, i)), Optional.empty());
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
    return fetchPart(from, i)
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

  /**
   * Part {@code i} is on {@code u}'s cloud. A part of a native upload is not readable until the
   * upload completes, so only then does the cloud become a source for copies ({@link #ackedBy});
   * the window moves on either way.
   */
  private void acked(Uploader u, int i) {
    if (u.multipart == null) {
      synchronized (this) {
        ackedBy.get(i).add(u.cloud);
      }
    }
    advance();
  }

  /** {@code u}'s native upload completed: every part is readable from its joined object. */
  private void joined(Uploader u) {
    synchronized (this) {
      joinedClouds.add(u.cloud);
      for (Set<String> by : ackedBy) {
        by.add(u.cloud);
      }
    }
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

    /** The cloud's native multipart upload, or null to put part objects. */
    final io.rafestore.spi.Multipart multipart;

    /** The native upload once begun (null without one); aborted if the upload does not finish. */
    CompletableFuture<io.rafestore.spi.MultipartUpload> began;

    /** Set once the upload failed or was cancelled: no native upload may begin after. */
    boolean abandoned;

    final boolean[] done = new boolean[count];
    int next;
    int doneCount;

    Uploader(String cloud, String object) {
      this.cloud = cloud;
      this.object = object;
      currentObject = object;
      this.multipart = nativeUpload(cloud);
    }

    /**
     * The cloud's native multipart upload if its limits take these parts: at least two of them (one
     * part is a plain put), stored parts (up to a seal's overhead longer than plain ones) within
     * its part sizes and count.
     */
    private io.rafestore.spi.Multipart nativeUpload(String cloud) {
      io.rafestore.spi.Multipart m = ctx.byId.get(cloud).driver().multipart().orElse(null);
      if (m == null
          || k > 0
          || count < 2
          || !m.fits(LogEntry.storedPartSize(partLength, sealer != null), count)) {
        return null;
      }
      return m;
    }

    /** The native upload, begun on first use. */
    private synchronized CompletableFuture<io.rafestore.spi.MultipartUpload> nativeUpload() {
      if (abandoned) {
        // A part whose bytes arrived after the upload ended must not begin an upload that
        // nothing would abort.
        return CompletableFuture.failedFuture(
            new CancellationException("the upload to " + cloud + " has ended"));
      }
      if (began == null) {
        began = multipart.begin(ObjectKey.of(object));
      }
      return began;
    }

    /**
     * Releases a native upload that did not finish (failed or cancelled), once it has begun; a
     * failed abort leaves only unreadable parts, which the cloud's lifecycle rules expire.
     */
    void abortNative() {
      CompletableFuture<io.rafestore.spi.MultipartUpload> b;
      synchronized (this) {
        abandoned = true;
        b = began;
      }
      if (b != null) {
        b.thenCompose(io.rafestore.spi.MultipartUpload::abort).exceptionally(e -> null);
      }
    }

    private CompletableFuture<Void> putPart(int i, byte[] bytes) {
      if (multipart == null) {
        return ctx.byId
            .get(cloud)
            .driver()
            .put(ObjectKey.of(LogEntry.partObject(object, i)), bytes);
      }
      return Futures.compose(nativeUpload(), up -> up.putPart(i, bytes));
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
        // Cancelling the part cancels its put, not the part's bytes (shared by every holder).
        CompletableFuture<Void> put = Futures.compose(part(i, cloud), bytes -> putPart(i, bytes));
        synchronized (PartedPayload.this) {
          if (inFlight.containsKey(i)) {
            inFlight.put(i, put);
          }
        }
        if (result.isDone()) {
          put.cancel(true);
        }
        Futures.onEnd(put, (r, e) -> onPart(i, e));
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
      if (complete && multipart != null) {
        completeNative();
      } else if (complete) {
        finish();
      } else {
        pump();
      }
    }

    /**
     * Joins the parts; the cloud is acknowledged only once the joined object exists. The request is
     * tracked like a part, so cancelling the upload cancels it (and then aborts).
     */
    private void completeNative() {
      CompletableFuture<Void> joinedUp = Futures.compose(nativeUpload(), up -> up.complete(count));
      synchronized (PartedPayload.this) {
        inFlight.put(-1, joinedUp);
      }
      if (result.isDone()) {
        joinedUp.cancel(true);
      }
      Futures.onEnd(
          joinedUp,
          (r, e) -> {
            synchronized (PartedPayload.this) {
              inFlight.remove(-1);
              if (result.isDone()) {
                return;
              }
            }
            if (e != null) {
              result.completeExceptionally(Futures.unwrap(e));
            } else {
              joined(this);
              finish();
            }
          });
    }

    private void finish() {
      // Not recorded as one request beside its parts: each part's put is measured (MeasuredCloud),
      // and the model takes the parts' concurrent transfers as one busy period of the link, so a
      // record of the whole would count its bytes twice.
      result.complete(null);
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
