package io.rafestore.internal.protocol.layout;

import io.rafestore.IntegrityException;
import io.rafestore.RafeStoreException;
import io.rafestore.Scheduler;
import io.rafestore.StoredValue;
import io.rafestore.VersionInfo;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Combine;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.ReadTier;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.support.Futures;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Reads of values stored in parts, and ranged and streaming reads of any value. Every byte handed
 * out has been checked against a signed hash first: a part against its part hash; an unsplit value
 * (at most one part size, or a DepSky value) is fetched whole and checked against the value's hash
 * before a range of it is returned, because a driver's ranged GET of an unsplit object could not be
 * verified.
 *
 * <p>A sealed value in parts (the confidentiality option) is read the same way: each stored part is
 * checked against its signed hash, then opened with the value's key ({@link ValueRead.Opening},
 * recovered by {@link SealedLayout} from f+1 key shares once per read); AES-GCM authenticates the
 * part's index and the part count too.
 */
final class PartedRead {
  private PartedRead() {}

  /**
   * How a layout in parts fetches stored part {@code i}, checked against its signed hash: whole
   * parts from one holder ({@link PartedRead#fetchPart}), or a coded part from k holders ({@link
   * CodedFetch#part}).
   */
  @FunctionalInterface
  interface PartFetch {
    CompletableFuture<DataFetch.Fetched> fetch(ValueRead r, int i, Spread spread);
  }

  /** Whole parts, each from the holder {@link Spread} picks. */
  static final PartFetch WHOLE_PARTS = PartedRead::fetchPart;

  /**
   * Stored part {@code i}: from the read tier's cache (checked against its signed hash; served by
   * {@link StoredValue#FROM_CACHE}), else from a prefetch of it in flight, else fetched by {@code
   * parts} (and then kept in the cache).
   */
  static CompletableFuture<DataFetch.Fetched> cachedPart(
      ValueRead r, int i, Spread spread, PartFetch parts) {
    if (!ReadTier.cacheable(r.entry)) {
      return parts.fetch(r, i, spread);
    }
    return r.ctx.readTier.through(
        ReadTier.unit(r.key, r.info.version(), r.entry, i),
        bytes -> new DataFetch.Fetched(bytes, StoredValue.FROM_CACHE),
        () -> parts.fetch(r, i, spread),
        DataFetch.Fetched::bytes);
  }

  /** The whole value, assembled from its parts (at most {@code partsInFlight} fetched at once). */
  static CompletableFuture<StoredValue> whole(ValueRead r, PartFetch parts) {
    Context ctx = r.ctx;
    String key = r.key;
    VersionInfo info = r.info;
    if (info.size() > ctx.settings.maxValueBytes()) {
      return CompletableFuture.failedFuture(
          new RafeStoreException(
              "version "
                  + info.version()
                  + " of '"
                  + key
                  + "' is "
                  + info.size()
                  + " bytes, over maxValueBytes "
                  + ctx.settings.maxValueBytes()
                  + "; read it with openStream or by range"));
    }
    boolean[] fromCloud = {false};
    // A relay, not thenApply: cancelling the whole value's future (a read that timed out) must
    // cancel the range and so the parts still downloading.
    return Futures.relay(
        range(r, 0, (int) info.size(), parts, fromCloud),
        bytes -> {
          // Every part matched its signed hash; the whole-value hash is signed too and must
          // agree, or the writer produced inconsistent metadata. (A sealed value's hash is of
          // its stored parts, each already checked, and is not recomputed.)
          if (r.opening == null && !Sha256.matches(bytes, info.sha256())) {
            throw new java.util.concurrent.CompletionException(
                new IntegrityException(
                    "parts of '" + key + "' " + info.version() + " do not make up its hash",
                    List.of()));
          }
          boolean cached;
          synchronized (fromCloud) {
            cached = !fromCloud[0];
          }
          return new StoredValue(
              info, bytes, cached ? StoredValue.FROM_CACHE : info.dataClouds().get(0));
        });
  }

  /**
   * {@code length} bytes from {@code offset} of a value not in parts (cut at its end): the value
   * read whole, verified (and decrypted or decoded) by {@code whole}, then cut, because a driver's
   * ranged GET of an unsplit object could not be verified.
   */
  static CompletableFuture<byte[]> cut(
      VersionInfo info, long offset, int length, CompletableFuture<StoredValue> whole) {
    long from = Math.min(offset, info.size());
    long to = Math.min(info.size(), from + length);
    int n = (int) (to - from);
    return whole.thenApply(
        v -> java.util.Arrays.copyOfRange(v.value(), (int) from, (int) from + n));
  }

  /**
   * {@code length} bytes from {@code offset} of a value in parts (cut at its end), fetching only
   * the parts that cover them, each opened by the read's {@link ValueRead.Opening} if it has one.
   */
  static CompletableFuture<byte[]> range(ValueRead r, long offset, int length, PartFetch parts) {
    return range(r, offset, length, parts, new boolean[1]);
  }

  /**
   * As {@link #range(ValueRead, long, int, PartFetch)}; sets {@code fromCloud[0]} (under its lock)
   * if any part did not come from the cache.
   */
  static CompletableFuture<byte[]> range(
      ValueRead r, long offset, int length, PartFetch parts, boolean[] fromCloud) {
    Context ctx = r.ctx;
    String key = r.key;
    VersionInfo info = r.info;
    LogEntry entry = r.entry;
    long from = Math.min(offset, info.size());
    long to = Math.min(info.size(), from + length);
    int n = (int) (to - from);
    byte[] out = new byte[n];
    if (n == 0) {
      return CompletableFuture.completedFuture(out);
    }
    int first = (int) (from / entry.partLength());
    int last = (int) ((to - 1) / entry.partLength());
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    Object lock = new Object();
    int[] next = {first};
    int[] remaining = {last - first + 1};
    List<CompletableFuture<DataFetch.Fetched>> running = new ArrayList<>();
    Futures.onEnd(
        result,
        (x, e) -> {
          List<CompletableFuture<DataFetch.Fetched>> copy;
          synchronized (lock) {
            copy = new ArrayList<>(running);
          }
          copy.forEach(f -> f.cancel(true));
        });
    Spread spread = new Spread(ctx, entry);
    Runnable[] launch = new Runnable[1];
    launch[0] =
        () -> {
          int i;
          synchronized (lock) {
            if (next[0] > last || result.isDone()) {
              return;
            }
            i = next[0]++;
          }
          CompletableFuture<DataFetch.Fetched> part = cachedPart(r, i, spread, parts);
          synchronized (lock) {
            running.add(part);
          }
          part.thenAccept(
              p -> {
                if (!StoredValue.FROM_CACHE.equals(p.cloud())) {
                  synchronized (fromCloud) {
                    fromCloud[0] = true;
                  }
                }
              });
          Futures.onEnd(
              opened(r, i, part),
              (p, e) -> {
                if (e != null) {
                  result.completeExceptionally(Futures.unwrap(e));
                  return;
                }
                long partStart = entry.partOffset(i);
                long copyFrom = Math.max(from, partStart);
                long copyTo = Math.min(to, partStart + p.length);
                System.arraycopy(
                    p,
                    (int) (copyFrom - partStart),
                    out,
                    (int) (copyFrom - from),
                    (int) (copyTo - copyFrom));
                boolean done;
                synchronized (lock) {
                  running.remove(part);
                  done = --remaining[0] == 0;
                }
                if (done) {
                  result.complete(out);
                } else {
                  launch[0].run();
                }
              });
        };
    for (int i = 0; i < ctx.settings.partsInFlight(); i++) {
      launch[0].run();
    }
    return result;
  }

  /**
   * The stored part of {@code entry} a read from byte {@code offset} would fetch first, if it may
   * be fetched before readM decides: the offset lies in the value, the settings allow anticipating
   * the part's stored bytes ({@code mayAnticipate}), and the read tier's cache does not hold it
   * already. Both parted layouts (whole-copy parts and coded parts) anticipate by it.
   */
  static java.util.OptionalInt partToAnticipate(ValueRead r, LogEntry entry, long offset) {
    if (offset < 0 || offset >= entry.size()) {
      return java.util.OptionalInt.empty();
    }
    int part = (int) (offset / entry.partLength());
    if (!r.ctx.settings.mayAnticipate(entry.storedPartSize(part))
        || r.ctx.readTier.holds(
            io.rafestore.internal.protocol.context.ReadTier.unit(
                r.key, r.info.version(), entry, part))) {
      return java.util.OptionalInt.empty();
    }
    return java.util.OptionalInt.of(part);
  }

  /**
   * Stored part {@code i} of {@code r}'s value, checked against its signed hash: the fetch
   * anticipated before readM if it is of that part (and not used yet), else a fetch that asks first
   * the holder {@code spread} picks.
   */
  static CompletableFuture<DataFetch.Fetched> fetchPart(ValueRead r, int i, Spread spread) {
    CompletableFuture<DataFetch.Fetched> anticipated =
        r.anticipated == null ? null : r.anticipated.takePart(i);
    if (anticipated != null) {
      spread.busy(r.anticipated.holder(), anticipated);
      return anticipated;
    }
    String first = spread == null ? null : spread.pick(i);
    CompletableFuture<DataFetch.Fetched> f =
        DataFetch.part(r.ctx, r.key, r.info, r.entry, i, first);
    if (first != null) {
      Futures.onEnd(f, (p, e) -> spread.done(first));
    }
    return f;
  }

  /** The plain bytes of a fetched part: as stored, or opened with the value's key. */
  private static CompletableFuture<byte[]> opened(
      ValueRead r, int i, CompletableFuture<DataFetch.Fetched> part) {
    if (r.opening == null) {
      return part.thenApply(DataFetch.Fetched::bytes);
    }
    return Combine.both(
        part,
        r.opening,
        (p, o) -> {
          try {
            return o.part(i, p.bytes());
          } catch (IntegrityException e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        },
        r.ctx.settings.executor());
  }

  /**
   * A stream over the value that fetches parts lazily, at most {@code partsInFlight} ahead of the
   * reader, each verified before its first byte is returned; the whole-value SHA-256 is computed on
   * the fly and checked at the end. Not thread-safe (as streams are not).
   */
  static InputStream stream(ValueRead r, PartFetch parts) {
    return new PartInputStream(r, parts, null);
  }

  /**
   * A stream over a value not in parts: read whole by {@code whole}, which verifies (and decrypts
   * or decodes) it, before its first byte is returned.
   */
  static InputStream streamOfWhole(ValueRead r, Supplier<CompletableFuture<StoredValue>> whole) {
    return new PartInputStream(r, null, whole);
  }

  private static final class PartInputStream extends InputStream {
    private final Context ctx;
    private final String key;
    private final VersionInfo info;
    private final ValueRead read;
    private final boolean parted;
    private final PartFetch parts;
    private final Supplier<CompletableFuture<StoredValue>> whole;
    private final int count;
    private final ArrayDeque<CompletableFuture<byte[]>> window = new ArrayDeque<>();
    private final Spread spread;
    private final MessageDigest digest;
    private int requested;
    private int consumed;
    private byte[] current = new byte[0];
    private int pos;
    private boolean closed;
    private boolean verified;

    PartInputStream(
        ValueRead read, PartFetch parts, Supplier<CompletableFuture<StoredValue>> whole) {
      this.ctx = read.ctx;
      this.read = read;
      this.parted = parts != null;
      this.parts = parts;
      this.whole = whole;
      this.key = read.key;
      this.info = read.info;
      this.count = parted ? read.entry.partCount() : 1;
      this.spread = new Spread(ctx, read.entry);
      try {
        this.digest = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is missing from this JVM", e);
      }
      fill();
    }

    private void fill() {
      while (requested < count && window.size() < ctx.settings.partsInFlight()) {
        int i = requested++;
        // Relayed, so that close() and a timeout cancel the fetches themselves.
        if (parted) {
          window.add(Futures.relay(cachedPart(read, i, spread, parts), DataFetch.Fetched::bytes));
        } else {
          window.add(Futures.relay(whole.get(), StoredValue::value));
        }
      }
    }

    private boolean advance() throws IOException {
      if (closed) {
        throw new IOException("stream of '" + key + "' is closed");
      }
      while (pos == current.length) {
        if (consumed == count) {
          // A value not in parts was verified (and decrypted or decoded) whole before its first
          // byte was handed out; its signed hash may be of the sealed bytes, not of these.
          if (!verified && parted) {
            verified = true;
            if (!MessageDigest.isEqual(digest.digest(), info.sha256())) {
              throw new IntegrityException(
                  "'" + key + "' " + info.version() + ": bytes do not match the signed hash",
                  List.of());
            }
          }
          return false;
        }
        CompletableFuture<byte[]> head = window.poll();
        fill();
        byte[] stored = await(head);
        // The signed whole-value hash is of the stored bytes (sealed, for a sealed value).
        digest.update(stored);
        // A value not in parts is opened whole by the fetch; a part is opened here.
        current =
            !parted || read.opening == null ? stored : await(read.opening).part(consumed, stored);
        pos = 0;
        if (parted) {
          // The read tier's sequential prefetching follows the stream part by part.
          ctx.readTier.accessed(
              ctx.tenant,
              key,
              info.version(),
              read.entry,
              read.entry.partOffset(consumed),
              read.entry.partSize(consumed),
              true);
        }
        consumed++;
      }
      return true;
    }

    /**
     * Waits for {@code f}, at most the operation timeout on the injected scheduler (as every
     * operation is bounded), and reports its failure as a {@link RafeStoreException}.
     */
    private <T> T await(CompletableFuture<T> f) throws IOException {
      AtomicBoolean late = new AtomicBoolean();
      Scheduler.Cancellable timer =
          ctx.settings
              .scheduler()
              .schedule(
                  ctx.settings.operationTimeout(),
                  () -> {
                    late.set(true);
                    f.cancel(true);
                  });
      try {
        return f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while reading '" + key + "'");
      } catch (CancellationException e) {
        throw new RafeStoreException(
            late.get()
                ? "a part of '" + key + "' did not arrive within the operation timeout"
                : "reading '" + key + "' was cancelled",
            late.get() ? new TimeoutException() : e);
      } catch (ExecutionException e) {
        Throwable cause = Futures.unwrap(e);
        if (cause instanceof RafeStoreException r) {
          throw r;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        throw new RafeStoreException("reading '" + key + "' failed: " + cause, cause);
      } finally {
        timer.cancel();
      }
    }

    @Override
    public int read() throws IOException {
      if (!advance()) {
        return -1;
      }
      return current[pos++] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      java.util.Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      if (!advance()) {
        return -1;
      }
      int n = Math.min(len, current.length - pos);
      System.arraycopy(current, pos, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public int available() {
      return current.length - pos;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        current = new byte[0];
        for (CompletableFuture<byte[]> f : window) {
          f.cancel(true);
        }
        window.clear();
      }
    }
  }
}
