package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.View;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A data fetch a read started before readM decided (an anticipated fetch): the first bytes a read
 * of one signed entry needs, fetched by the entry's layout exactly as a read after readM would
 * fetch them (the stored value of a whole or coded layout, one stored part of a parted one), and
 * checked against the entry's signed hashes as any fetch is.
 *
 * <p>It is bound to one (version, entry) pair: a read hands it to its layout ({@link
 * ValueRead#anticipated}) only when readM decided on an equal pair ({@link #isFor}), and otherwise
 * cancels it. So it changes when bytes are requested, never which bytes are accepted: a faulty
 * cloud's stale, replayed or withheld log can only make it fetch a version readM then does not
 * decide, which is wasted and cancelled. Used at most once; thread-safe.
 */
public final class Anticipation {
  /** {@link #part} of an anticipation of the whole stored value. */
  static final int WHOLE = -1;

  private final Version version;
  private final LogEntry entry;
  private final int part;
  private final long bytes;
  private final CompletableFuture<StoredValue> whole;
  private final CompletableFuture<DataFetch.Fetched> partFetch;
  private final String holder;
  private final AtomicBoolean taken = new AtomicBoolean();

  private Anticipation(
      ValueRead r,
      int part,
      long bytes,
      CompletableFuture<StoredValue> whole,
      CompletableFuture<DataFetch.Fetched> partFetch,
      String holder) {
    this.version = r.info.version();
    this.entry = r.entry;
    this.part = part;
    this.bytes = bytes;
    this.whole = whole;
    this.partFetch = partFetch;
    this.holder = holder;
  }

  /** An anticipated fetch of the whole stored value of {@code r}'s entry. */
  static Anticipation ofWhole(ValueRead r, long bytes, CompletableFuture<StoredValue> fetch) {
    return new Anticipation(r, WHOLE, bytes, fetch, null, null);
  }

  /**
   * An anticipated fetch of stored part {@code part} of {@code r}'s entry, asked first of {@code
   * holder} (null if unknown).
   */
  static Anticipation ofPart(
      ValueRead r,
      int part,
      long bytes,
      String holder,
      CompletableFuture<DataFetch.Fetched> fetch) {
    return new Anticipation(r, part, bytes, null, fetch, holder);
  }

  /** The holder a part fetch asked first (null for a whole value, or if unknown). */
  String holder() {
    return holder;
  }

  /**
   * Starts the fetch a read of {@code item} from byte {@code offset} would begin with, {@code item}
   * being named by {@code view} (one cloud's log, not yet a quorum's). Empty when the item's layout
   * does not anticipate or the fetch would move more than the settings allow ({@link
   * io.rafestore.internal.protocol.config.Settings#mayAnticipate}).
   */
  public static Optional<Anticipation> start(
      Context ctx, String key, View view, View.Item item, long offset) {
    if (item.entry().kind() != LogEntry.Kind.VALUE) {
      return Optional.empty();
    }
    return Layouts.of(item.entry()).anticipate(ValueRead.of(ctx, key, view, item), offset);
  }

  /** Whether this fetch is for exactly {@code item}: the same version and the same signed entry. */
  public boolean isFor(View.Item item) {
    return isFor(item.version(), item.entry());
  }

  boolean isFor(Version v, LogEntry e) {
    return version.equals(v) && entry.equals(e);
  }

  /** The bytes this fetch asks for. */
  public long bytes() {
    return bytes;
  }

  /** Cancels the fetch (readM decided another entry, or failed). */
  public void cancel() {
    if (whole != null) {
      whole.cancel(true);
    }
    if (partFetch != null) {
      partFetch.cancel(true);
    }
  }

  /** The anticipated stored value, the first time it is asked for; otherwise null. */
  CompletableFuture<StoredValue> takeWhole() {
    return part == WHOLE && taken.compareAndSet(false, true) ? whole : null;
  }

  /** The anticipated stored part {@code i}, the first time it is asked for; otherwise null. */
  CompletableFuture<DataFetch.Fetched> takePart(int i) {
    return part == i && taken.compareAndSet(false, true) ? partFetch : null;
  }
}
