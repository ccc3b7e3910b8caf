package io.rafestore.cli;

import io.rafestore.HistoryPage;
import io.rafestore.KeyPage;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreException;
import io.rafestore.VersionInfo;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Walks the store's keys under a prefix, a page at a time, with the newest version's signed
 * metadata of each: one key listing per {@value #PAGE} keys, then one metadata read (readM, no
 * value) per key, {@value #IN_FLIGHT} at a time. Keys whose history is empty (deleted: their
 * tombstone is still on the clouds) are skipped. Values are never fetched. Not thread-safe.
 */
final class Listing {
  /** Keys asked for per listing call. */
  static final int PAGE = 1000;

  /** Metadata reads in flight at once. */
  static final int IN_FLIGHT = 16;

  /** Receives one page of live keys with their newest version. */
  interface PageConsumer {
    void accept(List<VersionInfo> page) throws IOException;
  }

  private Listing() {}

  /**
   * Calls {@code consumer} with each page of live keys under {@code prefix} (every key when empty),
   * in listing order. The listing order is that of the keys' encoded object names, so a prefix does
   * not let the walk skip ahead: every key is listed and filtered here.
   */
  static void walk(RafeStore store, String prefix, PageConsumer consumer) throws IOException {
    String after = null;
    while (true) {
      KeyPage page = store.blocking().keys(after, PAGE);
      List<String> wanted = new ArrayList<>();
      for (String k : page.keys()) {
        if (k.startsWith(prefix)) {
          wanted.add(k);
        }
      }
      consumer.accept(newest(store, wanted));
      Optional<String> next = page.next();
      if (next.isEmpty()) {
        return;
      }
      after = next.get();
    }
  }

  /** The newest version of each key that has one, in the order given. */
  static List<VersionInfo> newest(RafeStore store, List<String> keys) throws IOException {
    List<VersionInfo> out = new ArrayList<>();
    for (int i = 0; i < keys.size(); i += IN_FLIGHT) {
      List<CompletableFuture<HistoryPage>> batch = new ArrayList<>();
      for (String k : keys.subList(i, Math.min(keys.size(), i + IN_FLIGHT))) {
        batch.add(store.history(k, Optional.empty(), 1));
      }
      for (CompletableFuture<HistoryPage> f : batch) {
        HistoryPage h = join(f);
        if (!h.versions().isEmpty()) {
          out.add(h.versions().get(0));
        }
      }
    }
    return out;
  }

  private static <T> T join(CompletableFuture<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.cancel(true);
      throw new InterruptedIOException("interrupted while reading metadata");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RafeStoreException r) {
        throw r;
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(c);
    }
  }
}
