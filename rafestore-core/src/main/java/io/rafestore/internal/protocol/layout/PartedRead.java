package io.rafestore.internal.protocol.layout;

import io.rafestore.IntegrityException;
import io.rafestore.RafeStoreException;
import io.rafestore.Scheduler;
import io.rafestore.StoredValue;
import io.rafestore.VersionInfo;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.context.Combine;
import io.rafestore.internal.protocol.context.Context;
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
 * checked against its signed hash, then opened with the value's key ({@code aead}, recovered from
 * f+1 key shares once per read); AES-GCM authenticates the part's index and the part count too.
 */
public final class PartedRead {
  private PartedRead() {}

  /** The whole value, assembled from its parts (at most {@code partsInFlight} fetched at once). */
  public static CompletableFuture<StoredValue> whole(
      Context ctx, String key, VersionInfo info, LogEntry entry, CompletableFuture<Aead> aead) {
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
    return range(ctx, key, info, entry, 0, (int) info.size(), null, aead)
        .thenApply(
            bytes -> {
              // Every part matched its signed hash; the whole-value hash is signed too and must
              // agree, or the writer produced inconsistent metadata. (A sealed value's hash is of
              // its stored parts, each already checked, and is not recomputed.)
              if (aead == null && !Sha256.matches(bytes, info.sha256())) {
                throw new java.util.concurrent.CompletionException(
                    new IntegrityException(
                        "parts of '" + key + "' " + info.version() + " do not make up its hash",
                        List.of()));
              }
              return new StoredValue(info, bytes, info.dataClouds().get(0));
            });
  }

  /**
   * {@code length} bytes from {@code offset} of the value (cut at its end), fetching only the parts
   * that cover them. A value not in parts is read whole, verified (and decrypted or decoded) by
   * {@code whole}, then cut.
   *
   * @param aead the value's key if the entry is sealed in parts, else null
   */
  public static CompletableFuture<byte[]> range(
      Context ctx,
      String key,
      VersionInfo info,
      LogEntry entry,
      long offset,
      int length,
      Supplier<CompletableFuture<StoredValue>> whole,
      CompletableFuture<Aead> aead) {
    long from = Math.min(offset, info.size());
    long to = Math.min(info.size(), from + length);
    int n = (int) (to - from);
    if (entry.coding() != LogEntry.Coding.PARTS) {
      return whole
          .get()
          .thenApply(v -> java.util.Arrays.copyOfRange(v.value(), (int) from, (int) from + n));
    }
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
    result.whenComplete(
        (r, e) -> {
          List<CompletableFuture<DataFetch.Fetched>> copy;
          synchronized (lock) {
            copy = new ArrayList<>(running);
          }
          copy.forEach(f -> f.cancel(true));
        });
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
          CompletableFuture<DataFetch.Fetched> part = DataFetch.part(ctx, key, info, entry, i);
          synchronized (lock) {
            running.add(part);
          }
          opened(ctx, key, info, entry, i, part, aead)
              .whenComplete(
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

  /** The plain bytes of a fetched part: as stored, or opened with the value's key. */
  private static CompletableFuture<byte[]> opened(
      Context ctx,
      String key,
      VersionInfo info,
      LogEntry entry,
      int i,
      CompletableFuture<DataFetch.Fetched> part,
      CompletableFuture<Aead> aead) {
    if (aead == null) {
      return part.thenApply(DataFetch.Fetched::bytes);
    }
    String writer = info.version().writer();
    return Combine.both(
        part,
        aead,
        (p, a) -> {
          try {
            return KeyShares.openPart(a, key, writer, entry, i, p.bytes());
          } catch (IntegrityException e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        },
        ctx.settings.executor());
  }

  /**
   * A stream over the value that fetches parts lazily, at most {@code partsInFlight} ahead of the
   * reader, each verified before its first byte is returned; the whole-value SHA-256 is computed on
   * the fly and checked at the end. Not thread-safe (as streams are not).
   */
  public static InputStream stream(
      Context ctx,
      String key,
      VersionInfo info,
      LogEntry entry,
      Supplier<CompletableFuture<StoredValue>> whole,
      CompletableFuture<Aead> aead) {
    return new PartInputStream(ctx, key, info, entry, whole, aead);
  }

  private static final class PartInputStream extends InputStream {
    private final Context ctx;
    private final String key;
    private final VersionInfo info;
    private final LogEntry entry;
    private final Supplier<CompletableFuture<StoredValue>> whole;
    private final CompletableFuture<Aead> aead;
    private final int count;
    private final ArrayDeque<CompletableFuture<byte[]>> window = new ArrayDeque<>();
    private final MessageDigest digest;
    private int requested;
    private int consumed;
    private byte[] current = new byte[0];
    private int pos;
    private boolean closed;
    private boolean verified;

    PartInputStream(
        Context ctx,
        String key,
        VersionInfo info,
        LogEntry entry,
        Supplier<CompletableFuture<StoredValue>> whole,
        CompletableFuture<Aead> aead) {
      this.ctx = ctx;
      this.whole = whole;
      this.aead = aead;
      this.key = key;
      this.info = info;
      this.entry = entry;
      this.count = entry.coding() == LogEntry.Coding.PARTS ? entry.partCount() : 1;
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
        if (entry.coding() == LogEntry.Coding.PARTS) {
          window.add(
              Futures.relay(DataFetch.part(ctx, key, info, entry, i), DataFetch.Fetched::bytes));
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
          if (!verified && entry.coding() == LogEntry.Coding.PARTS) {
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
        current =
            aead == null
                ? stored
                : KeyShares.openPart(
                    await(aead), key, info.version().writer(), entry, consumed, stored);
        pos = 0;
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
