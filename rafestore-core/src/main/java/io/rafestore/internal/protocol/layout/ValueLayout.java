package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.spi.ByteRange;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * How one version's value is laid out on its holders, and everything that depends on it: which
 * objects each holder stores, how a read fetches and checks them into the value (whole, a range, a
 * stream), how verify checks a holder's copy, how repair restores what a holder lost, and which
 * objects deletion and collection remove. One implementation per way of storing a value ({@link
 * ReplicaLayout}, {@link ReedSolomonLayout}, {@link DepSkyLayout}, {@link PartsLayout}); sealing
 * (the confidentiality option) wraps any of them ({@link SealedLayout}). {@link Layouts#of} is the
 * one place that picks the layout of a signed entry; no caller tests the entry's coding.
 *
 * <p>A layout is bound to one entry and immutable; its methods are thread-safe. Every byte a read
 * hands out, and every byte repair puts back, was first checked against a hash the entry signs.
 */
public interface ValueLayout {

  /** The objects {@code holder} stores the value in (for a holder of the version). */
  List<String> objectsOn(String holder);

  /**
   * Every object the value may occupy on any cloud: what garbage collection deletes and orphan
   * collection keeps.
   */
  List<String> allObjects();

  /**
   * What a delete asks {@code cloud} to remove, whether or not it is a holder (an upload cancelled
   * as useless may still have landed): {@code nativeMultipart} if the cloud offers native multipart
   * uploads, which may have left one joined object.
   */
  List<String> objectsToDelete(String cloud, boolean nativeMultipart);

  /** The whole value, every byte checked against the signed hashes. */
  CompletableFuture<StoredValue> read(ValueRead r);

  /**
   * {@code length} bytes from {@code offset} of the value (cut at its end), checked against a
   * signed hash before they are returned.
   */
  CompletableFuture<byte[]> range(ValueRead r, long offset, int length);

  /** A stream over the value; no byte is handed out before it was checked. Not thread-safe. */
  InputStream stream(ValueRead r);

  /**
   * Starts, before readM decides, the fetch that a read of the value from byte {@code offset}
   * begins with (the stored value, or the stored part that holds {@code offset}), if the settings
   * allow a fetch of its size; {@code r}'s view is one cloud's and must not be used for more than
   * where the bytes lie. A later read of the same entry given it ({@link ValueRead#anticipated})
   * uses its bytes instead of fetching them again. Empty if this layout anticipates nothing.
   */
  default Optional<Anticipation> anticipate(ValueRead r, long offset) {
    return Optional.empty();
  }

  /**
   * One request of verify to a holder: an object, or a range of it, and which part of the layout it
   * should hold ({@link #holds}); {@code note} names the part in a finding ("" if the object is the
   * whole of what the holder stores).
   */
  record Check(String object, Optional<ByteRange> range, int part, String note) {}

  /** The requests that together check everything {@code holder} stores. */
  List<Check> checksOn(String holder);

  /**
   * Whether {@code bytes}, returned for {@code check} by {@code holder}, are what it should hold.
   */
  boolean holds(String holder, Check check, byte[] bytes);

  /**
   * A request of a maintenance pass, bounded as the pass bounds each request (failed after a time
   * limit, and then cancelled); {@code what} names it in the failure.
   */
  interface Bound {
    <T> CompletableFuture<T> apply(CompletableFuture<T> request, String what);
  }

  /** Repair of one object on one holder: what it restores (for the report) and when it is done. */
  record Restore(String what, CompletableFuture<Void> done) {}

  /**
   * Puts back object {@code object} (one of {@link #objectsOn}) on {@code holder}, rebuilt or
   * copied from the other holders and checked against the signed hashes before it is put, so repair
   * only ever restores exactly what the writer stored.
   */
  Restore restore(Context ctx, Bound bound, Version version, String holder, String object);
}
