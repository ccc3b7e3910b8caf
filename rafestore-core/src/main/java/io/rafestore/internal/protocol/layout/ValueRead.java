package io.rafestore.internal.protocol.layout;

import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.View;
import java.util.concurrent.CompletableFuture;

/**
 * One read of one version, as a {@link ValueLayout} serves it: the key, the view readM built (whose
 * key shares a sealed value's key comes from), the version's writer and entry, and how the stored
 * bytes become the value's ({@link Opening}: as they are, or opened by {@link SealedLayout}).
 * Immutable.
 */
public final class ValueRead {
  final Context ctx;
  final String key;
  final View view;
  final String writer;
  final LogEntry entry;
  final VersionInfo info;

  /** The key that opens the stored bytes, once recovered; null when they are the value. */
  final CompletableFuture<Opening> opening;

  /** A fetch of this very entry started before readM decided, for the layout to use; or null. */
  final Anticipation anticipated;

  /**
   * A sealed entry's key, recovered before the read was handed to its layout ({@link #keyed}); null
   * when the layout recovers it itself. Read only through {@link #recoveredKey()} (a copy each
   * time: the layout wipes the copy it used).
   */
  private final byte[] recoveredKey;

  private ValueRead(
      Context ctx,
      String key,
      View view,
      String writer,
      LogEntry entry,
      CompletableFuture<Opening> opening,
      Anticipation anticipated,
      byte[] recoveredKey) {
    this.ctx = ctx;
    this.key = key;
    this.view = view;
    this.writer = writer;
    this.entry = entry;
    this.info = entry.info(key, writer);
    this.opening = opening;
    this.anticipated = anticipated;
    this.recoveredKey = recoveredKey;
  }

  /** A read of {@code item} of {@code key}, found by readM in {@code view}. */
  public static ValueRead of(Context ctx, String key, View view, View.Item item) {
    return new ValueRead(ctx, key, view, item.version().writer(), item.entry(), null, null, null);
  }

  /**
   * A read of version {@code version} of {@code key} whose signed entry {@code entry} readM decided
   * earlier, with no view: only for an entry that is not sealed (its key would come from a view's
   * shares), or to fetch stored units that are not opened ({@link ValueLayout#fetchUnit}).
   */
  public static ValueRead ofEntry(Context ctx, String key, Version version, LogEntry entry) {
    return new ValueRead(ctx, key, null, version.writer(), entry, null, null, null);
  }

  /**
   * The same read, using {@code a}'s bytes instead of fetching them again. {@code a} must be for
   * this read's version and entry exactly ({@link Anticipation#isFor}); a fetch anticipated for
   * anything else is refused, so an anticipation never changes which bytes a read accepts.
   */
  public ValueRead anticipated(Anticipation a) {
    if (!a.isFor(info.version(), entry)) {
      throw new IllegalArgumentException(
          "an anticipated fetch of another entry than version " + info.version() + "'s");
    }
    return new ValueRead(ctx, key, view, writer, entry, opening, a, recoveredKey);
  }

  /**
   * The same read, for a sealed entry with its key recovered now ({@link KeyShares#recoverKey}:
   * from the view's shares, or from the clouds' metadata objects if the view holds fewer than f+1
   * valid ones), so that a stream fails when it is opened rather than at its first byte if the key
   * cannot be had, and a read of the latest can pass over such an entry ({@link
   * KeyShares.TooFewShares}); for an entry that is not sealed, or one whose key is recovered
   * already, this read as it is.
   */
  public CompletableFuture<ValueRead> keyed() {
    if (!entry.isSealed() || recoveredKey != null) {
      return CompletableFuture.completedFuture(this);
    }
    return KeyShares.recoverKey(ctx, key, view, writer, entry)
        .thenApply(k -> new ValueRead(ctx, key, view, writer, entry, opening, anticipated, k));
  }

  /** A copy of the key {@link #keyed} recovered, or null. */
  byte[] recoveredKey() {
    return recoveredKey == null ? null : recoveredKey.clone();
  }

  /** The same read, its stored bytes opened by {@code how}. */
  ValueRead opened(CompletableFuture<Opening> how) {
    return new ValueRead(ctx, key, view, writer, entry, how, anticipated, recoveredKey);
  }

  /** The version's signed entry. */
  public LogEntry entry() {
    return entry;
  }

  /** What the reader is told about the version. */
  public VersionInfo info() {
    return info;
  }

  /**
   * How stored bytes become the value's: a whole stored value, or part {@code i} of a parted one,
   * opened and checked against its signed plain length.
   */
  interface Opening {
    byte[] whole(byte[] stored) throws io.rafestore.IntegrityException;

    byte[] part(int i, byte[] stored) throws io.rafestore.IntegrityException;
  }
}
